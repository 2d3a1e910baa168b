"""The package's layout keeps its plan (docs/architecture.md): no import cycles, no private name
imported across modules, the audit independent of the optimisers, a purpose line on every
module, and nothing read from outside the package."""

import ast
from pathlib import Path

import cspopt

PACKAGE = Path(cspopt.__file__).parent
#: layers that the independent judge must never import
OPTIMISERS = ("cspopt.models", "cspopt.bounds", "cspopt.heuristics", "cspopt.solving")


def modules() -> dict[str, ast.Module]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = ast.parse(path.read_text(), filename=str(path))
    return found


def imports(tree: ast.Module, names: set[str]) -> list[tuple[str, str]]:
    """``(module, imported name)`` of every cspopt import in ``tree``, at any depth."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cspopt"):
            out += [(node.module, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, "") for a in node.names if a.name.startswith("cspopt")]
    return out


def dependencies(name: str, tree: ast.Module, names: set[str]) -> set[str]:
    """The cspopt modules importing ``name`` runs: each imported module, its submodule if a
    name is one, and the packages above them (except ``name``'s own)."""
    deps = set()
    for module, imported in imports(tree, names):
        target = f"{module}.{imported}" if f"{module}.{imported}" in names else module
        parts = target.split(".")
        for i in range(2, len(parts) + 1):
            above = ".".join(parts[:i])
            if above in names and above != name and not name.startswith(above + "."):
                deps.add(above)
    return deps


def test_no_import_cycles():
    found = modules()
    graph = {n: dependencies(n, t, set(found)) for n, t in found.items()}
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for nxt in graph[node]:
            assert state.get(nxt) != 1, f"import cycle: {' -> '.join(path + [nxt])}"
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [node])


def test_no_private_name_is_imported_across_modules():
    private = [(n, m, name) for n, t in modules().items() for m, name in imports(t, set())
               if name.startswith("_") and name != "__version__"]
    assert private == []


def test_the_audit_imports_no_optimiser():
    for name, tree in modules().items():
        if name.startswith("cspopt.audit"):
            used = {m for m, _ in imports(tree, set())}
            assert not [m for m in used if m.startswith(OPTIMISERS)], name


def test_every_module_states_its_purpose_and_reads_nothing_outside():
    for name, tree in modules().items():
        doc = ast.get_docstring(tree)
        assert doc and doc.splitlines()[0].strip(), f"{name} has no purpose line"
    for path in PACKAGE.rglob("*.py"):
        assert "../shared" not in path.read_text() and '"shared"' not in path.read_text(), path
