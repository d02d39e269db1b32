"""A small graph drawn as inline SVG: nodes in layers (each node one layer below the deepest node it reads from),
edges as lines, each node coloured by what the caller says of it. No layout library: reduce's subgraphs have a
few nodes, and check's drawing is bounded (MAX_NODES in topological order, the rest counted in a line)."""

from __future__ import annotations

import html
import itertools

MAX_NODES = 200
_W, _H, _GAP_X, _GAP_Y = 150, 34, 20, 30
_IDS = itertools.count(1)  # each drawing its own marker id: several on one page
COLOURS = {"highlight": "#ffb3b3", "error": "#ffb3b3", "warning": "#ffe8a3", "runs": "#c8ecc8", "": "#e8eef7"}


def graph_svg(nodes: list[dict], caption: str = "") -> str:
    """``nodes`` in topological order, each {"name", "op", "inputs", "outputs", "state"} (state: a key of COLOURS;
    "highlight" and "error" are drawn red, with a thick border) -> an <svg> with a <figcaption>."""
    shown = nodes[:MAX_NODES]
    made = {}
    layer = []
    for i, node in enumerate(shown):
        depth = max((layer[made[t]] + 1 for t in node["inputs"] if t in made), default=0)
        layer.append(depth)
        for t in node["outputs"]:
            made[t] = i
    rows: dict[int, list[int]] = {}
    for i, depth in enumerate(layer):
        rows.setdefault(depth, []).append(i)
    width = max((len(r) for r in rows.values()), default=1) * (_W + _GAP_X) + _GAP_X
    height = len(rows) * (_H + _GAP_Y) + _GAP_Y
    where = {}
    for depth, members in rows.items():
        offset = (width - len(members) * (_W + _GAP_X) + _GAP_X) / 2
        for k, i in enumerate(members):
            where[i] = (offset + k * (_W + _GAP_X), _GAP_Y + depth * (_H + _GAP_Y))
    parts, arrow = [], f"arrow{next(_IDS)}"
    for i, node in enumerate(shown):
        x, y = where[i]
        for t in node["inputs"]:
            if t in made and made[t] < i:
                px, py = where[made[t]]
                parts.append(f'<line x1="{px + _W / 2:.0f}" y1="{py + _H:.0f}" x2="{x + _W / 2:.0f}" y2="{y:.0f}" '
                             f'stroke="#888" stroke-width="1.2" marker-end="url(#{arrow})"/>')
    for i, node in enumerate(shown):
        x, y = where[i]
        state = node.get("state", "")
        bold = state in ("highlight", "error")
        label = node["op"] if len(node["op"]) <= 20 else node["op"][:19] + "…"
        name = (f"#{node['index']} " if "index" in node else "") + node["name"]
        name = name if len(name) <= 24 else name[:23] + "…"
        title = html.escape(f"#{node.get('index', i)} {node['name']} ({node['op']})" + (f": {node['note']}" if node.get("note") else ""))
        parts.append(f'<g><title>{title}</title><rect x="{x:.0f}" y="{y:.0f}" width="{_W}" height="{_H}" rx="5" '
                     f'fill="{COLOURS.get(state, COLOURS[""])}" stroke="{"#b00020" if bold else "#555"}" '
                     f'stroke-width="{3 if bold else 1}"/>'
                     f'<text x="{x + _W / 2:.0f}" y="{y + 14:.0f}" font-size="12" text-anchor="middle" '
                     f'font-weight="bold">{html.escape(label)}</text>'
                     f'<text x="{x + _W / 2:.0f}" y="{y + 28:.0f}" font-size="10" text-anchor="middle">'
                     f'{html.escape(name)}</text></g>')
    more = f" ({len(nodes) - MAX_NODES} more nodes not drawn)" if len(nodes) > MAX_NODES else ""
    return (f'<figure><svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img"><defs><marker id="{arrow}" viewBox="0 0 10 10" refX="10" '
            'refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
            f'fill="#888"/></marker></defs>{"".join(parts)}</svg><figcaption>{html.escape(caption + more)}'
            '</figcaption></figure>')
