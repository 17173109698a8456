"""What Pyodide's start-up imports, cut to what the tablet's engine needs (issue 20: the cold
download), applied to Pyodide's own Python when ``scripts/build_engine_stdlib.mjs`` builds the
engine's stdlib. The whole stdlib (``python_stdlib.zip``, the fallback) is left as shipped.

Pyodide's start-up imported 1 MB of bytecode the engine never runs (211 kB of the 487 kB
brotli'd stdlib): its event loop (``pyodide.webloop`` → ``asyncio``, ``ssl``, ``socket``,
``subprocess``, ``logging``, ``concurrent``, ``threading``) and its package loader's archive
modules (``shutil`` → ``bz2``, ``lzma``, ``compression.zstd``; ``zipfile``, ``tempfile``). The
engine runs synchronously and loads no package, so:

- ``pyodide/__init__.py`` does not install the web event loop (``asyncio.run``, ``time.sleep``
  stay as they are);
- ``asyncio`` is a stub: ``_pyodide_core`` imports it at start-up and touches nothing; any
  attribute used later is a function that raises ``RuntimeError`` naming it (a clear failure,
  never a silent one);
- ``pyodide/_package_loader.py`` and ``pyodide/common.py`` import ``shutil``, ``zipfile`` and
  ``tempfile`` when first used (the wheel format is registered with ``shutil`` then).

Each patch names the exact text it replaces and fails the build when that text is missing (a new
Pyodide), rather than shipping an engine that breaks later. ``patch(name, text)`` returns the
new text of the stdlib file ``name``, or ``text`` unchanged.
"""
from __future__ import annotations

LAZY = '''
class _Lazy:
    """A module (or one of its names) imported when first used: the tablet's engine installs
    no package, so the archive modules are not imported at start-up (issue 20)."""

    def __init__(self, module, name=None, after=None):
        self._module, self._name, self._after, self._obj = module, name, after, None

    def _load(self):
        if self._obj is None:
            import importlib

            module = importlib.import_module(self._module)
            if self._after is not None:
                self._after(module)
            self._obj = getattr(module, self._name) if self._name else module
        return self._obj

    def __getattr__(self, attr):
        return getattr(self._load(), attr)

    def __call__(self, *args, **kwargs):
        return self._load()(*args, **kwargs)
'''

ASYNCIO_STUB = '''"""A stub (the tablet's engine, issue 20): Pyodide's core imports asyncio at start-up and uses
nothing of it; the engine runs synchronously. Whatever is asked for is a function that raises."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def unavailable(*args, **kwargs):
        raise RuntimeError("asyncio is not in the tablet's engine: asyncio." + name)

    unavailable.__name__ = name
    return unavailable
'''

WHEEL_FORMAT = '''if IN_PYODIDE:
    shutil.register_archive_format("whl", make_whlfile, description="Wheel file")
    shutil.register_unpack_format(
        "whl",
        [".whl", ".wheel"],
        shutil._unpack_zipfile,  # type: ignore[attr-defined]
        description="Wheel file",
    )
'''

REGISTER_WHEEL = '''

def _register_wheel(shutil):
    shutil.register_archive_format("whl", make_whlfile, description="Wheel file")
    shutil.register_unpack_format("whl", [".whl", ".wheel"], shutil._unpack_zipfile, description="Wheel file")
'''

# (file, the exact text, its replacement); a replacement may name LAZY
PATCHES = [
    ("pyodide/__init__.py",
     "from .webloop import _initialize_event_loop\n\n_initialize_event_loop()\ndel _initialize_event_loop\n",
     # the JavaScript references the event loop's import took, in the same order: Pyodide's memory
     # snapshot checks the table of them ("Unexpected hiwire entry") when it is made
     "from .ffi import IN_PYODIDE\n\nif IN_PYODIDE:\n    from pyodide_js._api import scheduleCallback  # noqa: F401\n"),
    ("pyodide/_package_loader.py", "import re\nimport shutil\n",
     "import re\n" + LAZY + "\n\nshutil = _Lazy(\"shutil\", after=lambda m: IN_PYODIDE and _register_wheel(m))\n"),
    ("pyodide/_package_loader.py", "from tempfile import NamedTemporaryFile\n",
     "NamedTemporaryFile = _Lazy(\"tempfile\", \"NamedTemporaryFile\")\n"),
    ("pyodide/_package_loader.py", "from zipfile import ZipFile\n", "ZipFile = _Lazy(\"zipfile\", \"ZipFile\")\n"),
    ("pyodide/_package_loader.py", WHEEL_FORMAT, ""),
    ("pyodide/common.py", "import shutil\n", LAZY + "\n\nshutil = _Lazy(\"shutil\")\n"),
]


def patch(name: str, text: str) -> str:
    """The patched text of stdlib file ``name`` (unchanged when no patch names it).

    Raises ``SystemExit`` when a patch's text is not found (another Pyodide)."""
    if name == "asyncio/__init__.py":
        return ASYNCIO_STUB
    for file, old, new in PATCHES:
        if file != name:
            continue
        if text.count(old) != 1:
            raise SystemExit(f"pyodide_boot_patches: {name} does not hold the text to patch (another Pyodide?):\n{old}")
        text = text.replace(old, new)
    if name == "pyodide/_package_loader.py":
        text += REGISTER_WHEEL
    return text


PATCHED = {file for file, _, _ in PATCHES} | {"asyncio/__init__.py"}
