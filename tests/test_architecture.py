"""The package's layout: imports point down the layers only, with no cycle, and modules stay small.

The graph is built from the source (every `import`, including those inside functions), so a
lazy import cannot hide a cycle. The layers are the ones ARCHITECTURE.md describes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "evals"

# Lower number = lower layer. A module may import its own subpackage or a lower layer.
LAYERS: dict[str, float] = {
    "evals": 0,
    "evals.errors": -1,
    "evals.config": 0,
    "evals.numfmt": 0,
    "evals.maths": 0,
    "evals.reply": 0,
    "evals.taskflags": 0,
    "evals.suite": 1,
    "evals.cli": 1.5,
    "evals.checks": 2,
    "evals.providers": 3,
    "evals.run": 4,
    "evals.judge": 5,
    "evals.calibrate": 5.5,
    "evals.compare": 6,
    "evals.seal": 7,
    "evals.mutate": 7,
    "evals.review": 7,
    "evals.interchange": 7,
    "evals.report": 8,
    "evals.label": 8.5,
    "evals.commands": 9,
    "evals.multi": 9.5,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Every module of the package and the package modules it imports, anywhere in its body."""
    modules = {module_name(p): p for p in PKG.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                # `from evals.checks import answer` names a module; `... import check` a function.
                if t in modules and t != name:
                    deps.add(t)
                    break
        graph[name] = deps
    return graph


def layer_of(module: str) -> tuple[str, float]:
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len)
    return best, LAYERS[best]


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for d in sorted(graph.get(n, ())):
            if state.get(d) == 1:
                return stack[stack.index(d) :] + [d]
            if d not in state and (found := visit(d)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_the_package_has_no_import_cycle() -> None:
    assert find_cycle(import_graph()) is None


def test_imports_point_down_the_layers_only() -> None:
    upward = []
    for mod, deps in import_graph().items():
        home, rank = layer_of(mod)
        for d in deps:
            d_home, d_rank = layer_of(d)
            if d_home != home and d_rank >= rank:
                upward.append(f"{mod} -> {d}")
    assert upward == []


def test_a_cycle_or_an_upward_import_would_be_found() -> None:
    graph = {"evals.run.a": {"evals.run.b"}, "evals.run.b": {"evals.run.a"}}
    assert find_cycle(graph) == ["evals.run.a", "evals.run.b", "evals.run.a"]
    assert layer_of("evals.run.runner")[1] < layer_of("evals.seal.runs")[1]


def test_every_module_belongs_to_a_layer() -> None:
    for mod in import_graph():
        assert layer_of(mod)[0], mod


def test_few_modules_at_the_top_and_none_too_long() -> None:
    assert len(list(PKG.glob("*.py"))) <= 8
    long = {
        str(p.relative_to(ROOT)): n
        for p in PKG.rglob("*.py")
        if (n := len(p.read_text("utf-8").splitlines())) > 420
    }
    assert long == {}


def test_every_subpackage_says_what_it_owns() -> None:
    for init in PKG.glob("*/__init__.py"):
        assert len(ast.get_docstring(ast.parse(init.read_text("utf-8"))) or "") > 40, init


def listed_modules() -> dict[str, list[str]]:
    """Each package ARCHITECTURE.md describes module by module, with its modules in the order given."""
    text = (ROOT / "ARCHITECTURE.md").read_text("utf-8")
    section = text.split("## Inside the feature packages", 1)[1].split("\n## ", 1)[0]
    out: dict[str, list[str]] = {}
    for item in re.split(r"\n- ", section)[1:]:
        package = re.match(r"`(\w+)/`", item)
        assert package, item
        home = PKG / package.group(1)
        names = [n for n in re.findall(r"`(\w+)`", item) if (home / f"{n}.py").exists()]
        out[f"evals.{package.group(1)}"] = list(dict.fromkeys(names))
    return out


def test_feature_modules_import_only_those_listed_before_them() -> None:
    graph = import_graph()
    listed = listed_modules()
    assert set(listed) == {"evals.mutate", "evals.seal", "evals.interchange", "evals.multi"}
    out_of_order = []
    for package, names in listed.items():
        on_disk = {p.stem for p in (PKG / package.split(".")[1]).glob("*.py")} - {"__init__"}
        assert set(names) == on_disk, package
        for i, name in enumerate(names):
            for dep in graph[f"{package}.{name}"]:
                if dep.startswith(package + ".") and names.index(dep.rsplit(".", 1)[1]) >= i:
                    out_of_order.append(f"{package}.{name} -> {dep}")
    assert out_of_order == []
