"""schedlab's simulation model: one discrete-event machine (CPUs, tasks, schedulers, network).

Pure Python + numpy. Never imports Qt; only ``model.cli``, the headless front end, reads the wall
clock or writes files, and nothing else in the model imports it.

The same sources may be compiled with mypyc (``SCHEDLAB_COMPILE=1`` when building: see setup.py);
Python then loads each compiled module instead of its ``.py`` file, as it does for any extension
module beside its source. ``NATIVE`` says which of the two this process runs.
"""

from __future__ import annotations

import os
from importlib.machinery import ExtensionFileLoader, PathFinder
from pathlib import Path

# numpy's OpenBLAS starts a thread per core when numpy is imported, and they spin for a while: about
# 0.1 s of CPU per process, taken from the run beside it on a small machine (a sweep's other job).
# The model does no linear algebra (numpy holds arrays and draws random numbers), so one thread does;
# a setting of the user's stands. Set here, before anything of schedlab imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

RESOURCE_PACKAGE = "schedlab_resources"  # the top-level resources/ folder, installed under this name


def _runs_compiled() -> bool:
    """Whether a core module (the simulation facade) loads from a compiled extension module.

    The path finder is the one Python uses for a submodule: where the compiled module and the
    ``.py`` file lie side by side, it picks the compiled one. Looking, not importing, keeps this cheap.
    """
    spec = PathFinder.find_spec(__name__ + ".simulation", __path__)
    return spec is not None and isinstance(spec.loader, ExtensionFileLoader)


NATIVE = _runs_compiled()
"""True when the model runs compiled (mypyc); False when it runs from its Python sources."""


def resource_root() -> Path:
    """The folder of schedlab's scenarios, lessons and icons: ``resources/`` in the source tree,
    package data ``schedlab_resources/`` in an installed wheel."""
    from importlib.resources import files  # here, not above: `import model` alone stays cheap

    root = files(RESOURCE_PACKAGE)
    if not isinstance(root, Path):  # a zip import or a namespace package: schedlab is installed as files
        raise RuntimeError(f"schedlab's resources are not a folder on disk: {root}")
    return root
