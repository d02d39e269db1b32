"""Which nodes onnxruntime moves to the CPU although another execution provider (CUDA) has kernels for them.

onnxruntime's CUDA EP takes every node it has a kernel for, then hands back the nodes that
``GetCpuPreferredNodes`` picks (onnxruntime/core/framework/fallback_cpu_capability.cc, stored version
039e489f3ff5): small shape computations. Starting from the consumers of every output a kernel writes to CPU
memory (Shape, Size), in topological order, a node is moved to the CPU when each of its inputs is a graph
input, an initializer of at most 100 elements or a CPU tensor that its kernel does not itself read from CPU
memory; none may be float16, bfloat16 or float8 (then it stays), and an omitted optional input keeps it too.
A moved node's outputs are CPU tensors, so its consumers are looked at next; so are those of a node no kernel
of the EP takes (it goes to the CPU as well). A session without CPU fallback then refuses the model.

Before partitioning, onnxruntime's level-1 ConstantFolding (onnxruntime/core/optimizer/constant_folding.cc, on at
the default optimization level) replaces by initializers every deterministic node whose inputs are all constant
(not DequantizeLinear, kept for quantized patterns) and every Shape whose input shape is static: such nodes are
never placed. The data (which kernel reads or writes which tensor in CPU memory) is the target's profile's
``placement`` entry (converter/targets/profiles.py).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable

from .attributes import constant_tensor
from .model_view import ModelView


def constant_sizes(view: ModelView) -> dict[str, int | None]:
    """Every constant tensor when onnxruntime partitions the graph -> its element count (None: unknown): the
    initializers that are not graph inputs (those can be fed) and the outputs of Constant nodes, whatever their
    attribute (value, value_ints, value_float, ...: onnxruntime makes each an initializer when it loads the graph)."""
    graph = view.graph
    fed = {i.name for i in graph.input}
    sizes: dict[str, int | None] = {i.name: math.prod(i.dims) for i in graph.initializer if i.name not in fed}
    for node in graph.node:
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and node.output:
            made = constant_tensor(node)  # from its first attribute, as onnxruntime makes it
            if made is not None:
                sizes[node.output[0]] = math.prod(made[1])
    return sizes


def folded(view: ModelView, data: dict, has_cpu_kernel: Callable[[int], bool]) -> tuple[set[int], dict[str, int | None]]:
    """(the nodes onnxruntime's constant folding removes, every constant tensor afterwards -> its element count)."""
    graph = view.graph
    constants = constant_sizes(view)
    removed: set[int] = set()
    for i, node in enumerate(graph.node):
        if node.domain not in ("", "ai.onnx") or node.op_type in data["not_folded"] or node.op_type == "Constant":
            continue
        if any(a.type in (5, 10) for a in node.attribute):  # a subgraph (If, Loop, Scan): never folded
            continue
        if node.op_type == "Shape":
            shape = view.shapes.get(node.input[0]) if node.input else None
            fold = shape is not None and None not in shape
        else:
            given = [n for n in node.input if n]
            fold = bool(given) and all(n in constants for n in given) and has_cpu_kernel(i)
        if fold:
            removed.add(i)
            for name in node.output:
                if name:
                    shape = view.shapes.get(name)  # the folded value's size: its inferred shape
                    constants[name] = math.prod(shape) if shape is not None and None not in shape else None
    return removed, constants


def cpu_preferred(view: ModelView, taken: set[int], data: dict, has_cpu_kernel: Callable[[int], bool],
                  fold: bool = True) -> dict[int, str]:
    """node index -> why onnxruntime moves that node (which the EP ``taken`` has a kernel for) to the CPU.

    ``fold`` False: the graph is a function body onnxruntime inlined while partitioning, after constant folding
    ran (level-1 optimizers run once, before partitioning: inference_session.cc TransformGraph), so nothing of
    it is folded (onnx's test_group_normalization_example is refused on an H100, its _expanded twin runs)."""
    graph = view.graph
    nodes = graph.node
    if not any(nodes[i].op_type in data["cpu_outputs"] for i in taken):
        return {}  # nothing writes to CPU memory: nothing to move (the common case, decided without any graph walk)
    removed, constants = folded(view, data, has_cpu_kernel) if fold else (set(), constant_sizes(view))
    provider = {i for i in taken if i not in removed}
    consumers: dict[str, list[int]] = {}
    for i, node in enumerate(nodes):
        for name in node.input:
            if name:
                consumers.setdefault(name, []).append(i)
    initializers = _initializers(view)
    inputs = {i.name for i in graph.input if i.name not in initializers}
    limit, stays = data["small_initializer"], set(data["stays"])

    def small(name: str) -> bool:
        size = constants.get(name)
        return size is not None and size <= limit

    cpu_args: dict[str, str] = {}  # tensor -> the node that makes it on the CPU (for the message)
    queue: list[int] = []
    for i in sorted(provider):
        for k, name in enumerate(nodes[i].output):
            if name and k in data["cpu_outputs"].get(nodes[i].op_type, ()):
                cpu_args[name] = _label(nodes, i)
                queue += consumers.get(name, [])
    heapq.heapify(queue)
    moved: dict[int, str] = {}
    seen: set[int] = set()
    while queue:
        current = heapq.heappop(queue)
        if current in seen or current in removed:
            continue
        seen.add(current)
        node = nodes[current]
        if current not in provider:  # no kernel of the EP: it runs on the CPU, its outputs are CPU tensors
            for name in node.output:
                if name:
                    cpu_args[name] = _label(nodes, current)
                    for c in consumers.get(name, []):
                        heapq.heappush(queue, c)
            continue
        reads = data["cpu_inputs"].get(node.op_type, ())
        from_cpu = []
        for k, name in enumerate(node.input):
            if view.types.get(name) in stays:
                break
            if name and (small(name) or name in inputs):
                continue
            if not name or name not in cpu_args or k in reads:
                break
            from_cpu.append(f"{name} (from {cpu_args[name]})")
        else:
            moved[current] = ("onnxruntime moves it to the CPU EP (GetCpuPreferredNodes: a small shape computation on "
                              f"CPU tensors {', '.join(dict.fromkeys(from_cpu))}), which a CUDA session without CPU "
                              "fallback refuses")
            for name in node.output:
                if name:
                    cpu_args[name] = _label(nodes, current)
                    for c in consumers.get(name, []):
                        heapq.heappush(queue, c)
    return moved


def _initializers(view: ModelView) -> set[str]:
    return {i.name for i in view.graph.initializer}


def _label(nodes, i: int) -> str:
    return f"{nodes[i].name or '#' + str(i)} ({nodes[i].op_type})"
