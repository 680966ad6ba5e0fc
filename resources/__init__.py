"""schedlab's data files: scenarios, lessons, icons and the desktop entry.

Installed as the package ``schedlab_resources`` (setup.py maps this folder to that name), so that the
model finds them through ``importlib.resources`` (``model.resource_root()``) in the source tree and in
an installed wheel alike. No code lives here.
"""
