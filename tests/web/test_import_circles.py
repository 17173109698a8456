"""No module of any package (the rules, the words, the tournament core, the web side) imports,
even inside a function, one that imports it back: the layers of ``docs/architecture.md`` hold
only if every import points one way. (Circles ``core.competitions`` ⇄ ``core.seasons`` and
``tournament.spec`` ⇄ ``tournament.plan`` hid behind imports inside functions; this finds the next.)"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("sinuca", "presentation", "tournament", "scoreboard")


def _graph() -> dict[str, set[str]]:
    files = {".".join(p.relative_to(ROOT).with_suffix("").parts[:-1] if p.name == "__init__.py"
                      else p.relative_to(ROOT).with_suffix("").parts): p
             for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py") if "migrations" not in p.parts}
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for n in names:
                while n and n not in files:  # ``from x import name``: the module x
                    n = n.rpartition(".")[0]
                # a module importing its own package goes through the package's face, not a circle
                if n and n != mod and not mod.startswith(n + "."):
                    out.add(n)
        graph[mod] = out
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_finder_sees_a_circle():
    assert _circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]


def test_no_import_circle_in_any_package():
    graph = _graph()
    # every package is scanned, imports inside functions included
    assert "scoreboard.core.seasons" in graph and "scoreboard.core.competitions" in graph["scoreboard.core.seasons"]
    assert {"sinuca.engine", "presentation.tablet", "tournament.plan"} <= set(graph)
    assert "tournament.spec" in graph["tournament.plan"]
    assert _circles(graph) == []
