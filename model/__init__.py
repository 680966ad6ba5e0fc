"""schedlab's simulation model: one discrete-event machine (CPUs, tasks, schedulers, network).

Pure Python + numpy. Never imports Qt, never reads the wall clock, never starts threads.

The same sources may also be compiled with mypyc (``python -m model.build_native``, which ``./run.sh``
does on first use): the compiled modules run the identical code several times faster. They are used
only while they match the sources byte for byte (the stamp below); after any edit, or with
``SCHEDLAB_PURE=1`` in the environment, every module loads from its ``.py`` file instead.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

PACKAGE_DIR = Path(__file__).resolve().parent
NATIVE_STAMP = PACKAGE_DIR / "_native.stamp"  # written by build_native: the sources' digest


def source_files() -> list[Path]:
    """Every source file of the model, in a fixed order."""
    return sorted(PACKAGE_DIR.rglob("*.py"))


def source_digest() -> str:
    """What a compiled build must have been built from: the sources and the Python that ran it."""
    digest = hashlib.sha256(sys.version.encode())
    for path in source_files():
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _native_build_is_current() -> bool:
    try:
        return NATIVE_STAMP.read_text().strip() == source_digest()
    except OSError:
        return False


class _SourceFirst:
    """Load ``model.*`` modules from their ``.py`` files even where a compiled module lies beside them.

    A meta-path finder by its ``find_spec`` alone (importlib.abc would cost more to import than the check)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(__name__ + ".") or path is None:
            return None
        leaf = fullname.rpartition(".")[2]
        for entry in path:
            candidate = os.path.join(entry, leaf + ".py")
            if os.path.isfile(candidate):
                return importlib.util.spec_from_file_location(fullname, candidate)
        return None  # a package, or not ours: the normal finders handle it


NATIVE = os.environ.get("SCHEDLAB_PURE", "") in ("", "0") and _native_build_is_current()
"""True when the model runs compiled (mypyc); False when it runs from its Python sources."""

if not NATIVE:
    sys.meta_path.insert(0, _SourceFirst())
