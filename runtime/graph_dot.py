"""Graphviz (dot) rendering of a Graph: what `Graph.to_dot()` and `autograph graph --dot` print.

The picture says what `str(graph)` says, laid out top to bottom:

- inputs (placeholders) are blue `name: dtype[shape]` boxes; a subgraph shows only the
  inputs it uses;
- constants are plain text, their value and dtype (`2 : int32`), with no box;
- every other node is its op name; a node holding subgraphs (while, cond, switch_case) is
  yellow, and each of its subgraphs is a cluster below it (`while body`, `cond true`), joined
  to it by a dotted edge;
- edges carry the dtype and shape of the tensor they pass (`int32[]`; `1: int32[]` for the
  second output of a node with several); edges from constants carry none;
- each graph ends in a `return` node whose incoming edges are its outputs, in order.

Node ids are the node names prefixed by the path of subgraphs (`while/body_graph/add`), so the
same name in two subgraphs stays two nodes; the id is the node's tooltip.
"""

import numpy as np

from runtime.tensor_shape import format_shape

_HEADER = (
    '  graph [rankdir=TB, compound=true, newrank=true, fontname="Helvetica", fontsize=10,'
    ' nodesep=0.2, ranksep=0.3];',
    '  node [shape=box, style="rounded,filled", fillcolor="white", fontname="Helvetica",'
    ' fontsize=10, height=0.25, margin="0.08,0.03"];',
    '  edge [fontname="Helvetica", fontsize=8, arrowsize=0.6, color="#555555"];',
)
_INPUT_STYLE = 'fillcolor="#dbe9f7"'
_STRUCTURED_STYLE = 'fillcolor="#fff2b3"'
_RETURN_STYLE = 'shape=plain, style="", fontcolor="#555555"'


def escape(text):
    """Escapes text for a double-quoted dot string."""
    return str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def to_dot(graph):
    """Returns `graph` in Graphviz dot syntax (see the module docstring).

    Args:
        graph: A runtime Graph.

    Returns:
        The dot source, a string ending in a newline.
    """
    lines = [f'digraph "{escape(graph.name)}" {{', *_HEADER]
    _body(graph, "", lines, "  ", top=True)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _type_text(tensor):
    return tensor.dtype.name + format_shape(tensor.shape)


def _constant_text(node):
    value = node.attrs.get("value")
    array = np.asarray(value)
    if array.ndim == 0:
        item = array.item()
        text = repr(item) if isinstance(item, (str, bytes)) else str(item)
    else:
        text = np.array2string(array, separator=",", threshold=6, edgeitems=2,
                               max_line_width=40)
    dtype = node.outputs[0].dtype.name if node.outputs else array.dtype.name
    return f"{text} : {dtype}"


def _used(graph):
    """The nodes of `graph` whose outputs something in `graph` reads (inputs or outputs)."""
    used = set()
    for node in graph.nodes:
        for t in node.inputs:
            used.add(t.node)
        for c in node.control_inputs:
            used.add(c)
    for t in graph.outputs or ():
        node = getattr(t, "node", None)
        if node is not None:
            used.add(node)
    return used


def _edge_label(tensor, plain=()):
    node = tensor.node
    if node.op == "constant" or node in plain:
        return ""
    text = _type_text(tensor)
    if node.output_names:
        text = f"{node.output_names[tensor.index]}: {text}"
    elif len(node.outputs) > 1:
        text = f"{tensor.index}: {text}"
    return f' [label="{escape(text)}"]'


def _body(graph, prefix, lines, indent, top=False):
    """Appends the nodes, edges and clusters of `graph`; returns the id of its first node."""
    used = _used(graph)
    captured = {inner.node: outer for outer, inner in getattr(graph, "captures", ())}
    plain = {n for n, outer in captured.items() if outer.node.op == "constant"}
    first = None
    for node in graph.nodes:
        node_id = escape(prefix + node.name)
        outer = captured.get(node)
        if node in plain:
            if node not in used:
                continue
            label = _constant_text(outer.node)  # a captured constant: show its value
            attrs = 'shape=plain, style=""'
        elif node.op == "placeholder":
            if not top and node not in used:
                continue
            label = f"{node.name}: {_type_text(node.outputs[0])}"
            attrs = _INPUT_STYLE
        elif node.op == "constant":
            label = _constant_text(node)
            attrs = 'shape=plain, style=""'
        else:
            label = node.op
            attrs = _STRUCTURED_STYLE if node.subgraphs() else ""
        if first is None:
            first = node_id
        attrs = f', {attrs}' if attrs else ""
        lines.append(f'{indent}"{node_id}" [label="{escape(label)}", tooltip="{node_id}"{attrs}];')
        for t in node.inputs:
            src = escape(prefix + t.node.name)
            lines.append(f'{indent}"{src}" -> "{node_id}"{_edge_label(t, plain)};')
        for c in node.control_inputs:
            src = escape(prefix + c.name)
            lines.append(f'{indent}"{src}" -> "{node_id}" [style=dashed];')
        for key, sub in node.subgraphs():
            title = f"{node.op} {key[:-len('_graph')] if key.endswith('_graph') else key}"
            _cluster(title, node_id, sub, f"{prefix}{node.name}/{key}/", lines, indent)
    return_id = escape(prefix + "return")
    outputs = [t for t in (graph.outputs or ()) if getattr(t, "node", None) is not None]
    if outputs:
        lines.append(f'{indent}"{return_id}" [label="return", {_RETURN_STYLE}];')
        for t in outputs:
            src = escape(prefix + t.node.name)
            lines.append(f'{indent}"{src}" -> "{return_id}"{_edge_label(t, plain)};')
    return first or (return_id if outputs else None)


def _cluster(title, node_id, sub, sub_prefix, lines, indent):
    cluster = escape("cluster_" + sub_prefix)
    lines.append(f'{indent}subgraph "{cluster}" {{')
    lines.append(f'{indent}  label="{escape(title)}"; style="rounded"; color="#999999";'
                 f' fontcolor="#555555";')
    anchor = _body(sub, sub_prefix, lines, indent + "  ")
    if anchor is None:  # an empty subgraph: a point to join it to
        anchor = escape(sub_prefix + "empty")
        lines.append(f'{indent}  "{anchor}" [shape=point, label=""];')
    lines.append(indent + "}")
    lines.append(f'{indent}"{node_id}" -> "{anchor}" [lhead="{cluster}", style=dotted,'
                 f' arrowhead=none];')
