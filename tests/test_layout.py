"""The package's layout keeps its plan (docs/architecture.md): no import cycles, no private name
imported across modules, the audit independent of the optimisers, a purpose line on every
module, and nothing read from outside the package."""

import ast
import re
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


# --- sizes and rooms (issue #50): parts a newcomer can find -------------------------------
TESTS = Path(__file__).parent
DOCS = PACKAGE.parent / "docs"
#: the longest function and module the package keeps
MAX_FUNCTION_LINES, MAX_MODULE_LINES = 120, 700
#: the benchmark tables (CSPLIB and generated) that library text must not name: measurements
#: belong to docs/bench/, where they can be rerun and dated
BENCHMARK_NAMES = re.compile(r"hier1[0-9]|hier-20|table8\b|gensup[12]-|smith-[0-9]|fz_[0-9a-z]"
                             r"|GenSup (I|II|class I|class II) [0-9]+x[0-9]+|history\.md")


def test_no_function_or_module_is_too_long():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        assert len(text.splitlines()) <= MAX_MODULE_LINES, path
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                assert length <= MAX_FUNCTION_LINES, f"{path}: {node.name} has {length} lines"


def test_solver_libraries_are_imported_by_the_back_ends_and_the_audit_only():
    for path in PACKAGE.rglob("*.py"):
        room = path.relative_to(PACKAGE).parts[0]
        if room in ("backends", "audit"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not [n for n in names if n.split(".")[0] in ("highspy", "pyscipopt")], path


def test_library_text_names_no_benchmark_table():
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).parts[0] == "bench":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not BENCHMARK_NAMES.search(line), f"{path}:{number}: {line.strip()}"


def test_no_test_module_imports_another():
    for path in TESTS.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith(("test_", "conftest")), path
            elif isinstance(node, ast.Import):
                assert not [a for a in node.names if a.name.startswith("test_")], path


def test_results_pages_are_current_and_docs_do_not_point_outside():
    for page in (DOCS / "bench").glob("*.md"):
        if page.name != "history.md":
            assert len(page.read_text().splitlines()) < 250, page
    for page in DOCS.rglob("*.md"):
        assert "../shared" not in page.read_text(), page
