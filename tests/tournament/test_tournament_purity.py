"""The tournament core imports no Django and nothing of the scoreboard (import-linter contract
plus a scan of every module)."""
import ast
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORBIDDEN = ("django", "channels", "daphne", "scoreboard")


def test_the_tournament_contract_is_kept():
    exe = shutil.which("lint-imports", path=str(pathlib.Path(sys.executable).parent))
    p = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "tournament formats are pure Python: no Django, no scoreboard KEPT" in p.stdout


def test_no_tournament_module_names_a_forbidden_package():
    files = list((ROOT / "tournament").rglob("*.py"))
    assert len(files) >= 6
    for f in files:
        for node in ast.walk(ast.parse(f.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for n in names:
                assert n.split(".")[0] not in FORBIDDEN, f"{f.name} imports {n}"
