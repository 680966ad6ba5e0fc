"""schedlab's desktop front end: PySide6 + pyqtgraph panels that render model snapshots."""
