"""The window's panels, one file each: ``render(snapshot)`` draws, signals go up, no model state kept."""
