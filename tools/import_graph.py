"""The import graph of the installed spec2onnx package (a developer tool; run from a checkout).

    python -m tools.import_graph            # modules, edges, import circles, in-function imports
    python -m tools.import_graph --list     # also every in-function import of the package's own modules

The graph is grimp's (the one import-linter checks, pyproject.toml [tool.importlinter]): it counts
imports inside functions too. A circle is a strongly connected component of more than one module.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def graph(package: str = "spec2onnx"):
    import grimp

    g = grimp.build_graph(package, include_external_packages=False, cache_dir=None)  # (no stale cache)
    modules = sorted(g.modules)
    edges = sorted((m, t) for m in modules for t in g.find_modules_directly_imported_by(m))
    return modules, edges


def circles(modules, edges) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    adj = {m: [] for m in modules}
    for a, b in edges:
        adj[a].append(b)
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(adj[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(adj[w])))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def inline_imports(package_dir: Path) -> list[tuple[str, int, str]]:
    """(file, line, source) of every import of the package's own modules inside a function or method."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("spec2onnx")):
                    found.append((str(path.relative_to(package_dir.parent)), node.lineno, ast.unparse(node)))
    return sorted(set(found))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    import spec2onnx

    modules, edges = graph()
    cycles = circles(modules, edges)
    inline = inline_imports(Path(spec2onnx.__file__).parent)
    print(f"{len(modules)} modules, {len(edges)} edges, {len(cycles)} import circles, "
          f"{len(inline)} in-function imports of the package's own modules")
    for comp in cycles:
        print("circle:", ", ".join(comp))
    if "--list" in argv:
        for file, line, source in inline:
            print(f"{file}:{line}: {source}")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
