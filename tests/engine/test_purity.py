"""The rules engine imports no Django: an import-linter contract (pyproject.toml), and a scan."""
import ast
import re
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORBIDDEN = ("django", "channels", "daphne", "scoreboard")


def test_the_import_contract_holds():
    exe = shutil.which("lint-imports", path=str(pathlib.Path(sys.executable).parent))
    assert exe, "import-linter is installed by the test command"
    p = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert re.search(r"Contracts: ([3-9]|\d\d+) kept, 0 broken", p.stdout), p.stdout


def test_no_module_under_sinuca_names_a_forbidden_package():
    for f in (ROOT / "sinuca").rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for n in names:
                assert n.split(".")[0] not in FORBIDDEN, f"{f.name} imports {n}"
