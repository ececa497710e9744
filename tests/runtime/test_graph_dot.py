"""Graphviz rendering (runtime/graph_dot.py): labels, clusters joined to their node, a picture."""

import os
import re
import shutil
import struct
import subprocess
import sys

import pytest

import runtime as tf
from runtime import context
from runtime.graph import Graph

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _cond_graph():
    graph = Graph("g")
    with context.graph_scope(graph):
        x = graph.placeholder(tf.int32, (), name="x")
        out = tf.cond(x > 0, lambda: x * 2, lambda: tf.constant(-1))
    graph.outputs = [out]
    return graph


def test_small_cond_graph_golden():
    assert _cond_graph().to_dot().split("\n", 4)[4] == '''\
  "x" [label="x: int32[]", tooltip="x", fillcolor="#dbe9f7"];
  "Const" [label="0 : int32", tooltip="Const", shape=plain, style=""];
  "greater" [label="greater", tooltip="greater"];
  "x" -> "greater" [label="int32[]"];
  "Const" -> "greater";
  "cond" [label="cond", tooltip="cond", fillcolor="#fff2b3"];
  "greater" -> "cond" [label="bool[]"];
  "x" -> "cond" [label="int32[]"];
  subgraph "cluster_cond/true_graph/" {
    label="cond true"; style="rounded"; color="#999999"; fontcolor="#555555";
    "cond/true_graph/x" [label="x: int32[]", tooltip="cond/true_graph/x", fillcolor="#dbe9f7"];
    "cond/true_graph/Const" [label="2 : int32", tooltip="cond/true_graph/Const", shape=plain, style=""];
    "cond/true_graph/multiply" [label="multiply", tooltip="cond/true_graph/multiply"];
    "cond/true_graph/x" -> "cond/true_graph/multiply" [label="int32[]"];
    "cond/true_graph/Const" -> "cond/true_graph/multiply";
    "cond/true_graph/return" [label="return", shape=plain, style="", fontcolor="#555555"];
    "cond/true_graph/multiply" -> "cond/true_graph/return" [label="int32[]"];
  }
  "cond" -> "cond/true_graph/x" [lhead="cluster_cond/true_graph/", style=dotted, arrowhead=none];
  subgraph "cluster_cond/false_graph/" {
    label="cond false"; style="rounded"; color="#999999"; fontcolor="#555555";
    "cond/false_graph/Const" [label="-1 : int32", tooltip="cond/false_graph/Const", shape=plain, style=""];
    "cond/false_graph/return" [label="return", shape=plain, style="", fontcolor="#555555"];
    "cond/false_graph/Const" -> "cond/false_graph/return";
  }
  "cond" -> "cond/false_graph/Const" [lhead="cluster_cond/false_graph/", style=dotted, arrowhead=none];
  "return" [label="return", shape=plain, style="", fontcolor="#555555"];
  "cond" -> "return" [label="int32[]"];
}
'''


def _early_exit_dot(function, signature):
    proc = subprocess.run(
        [sys.executable, '-m', 'autograph', 'graph', 'examples/early_exit.py:' + function,
         '--signature', signature, '--dot'],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=True,
        env=dict(os.environ, PYTHONPATH=ROOT))
    return proc.stdout


_NODE = re.compile(r'^\s*"([^"]+)" \[label=', re.M)
_EDGE = re.compile(r'^\s*"([^"]+)" -> "([^"]+)"(?: \[(.*)\])?;$', re.M)
_CLUSTER = re.compile(r'^\s*subgraph "(cluster_[^"]+)" \{', re.M)


@pytest.fixture(scope='module')
def early_exit_dots():
    return {'steps_to_exceed': _early_exit_dot('steps_to_exceed', 'int32[], int32[]'),
            'first_index_above': _early_exit_dot('first_index_above',
                                                 'float32[None], float32[]')}


def test_early_exit_graphs_are_connected(early_exit_dots):
    for dot in early_exit_dots.values():
        nodes = set(_NODE.findall(dot))
        edges = _EDGE.findall(dot)
        assert all(src in nodes and dst in nodes for src, dst, _ in edges)
        # Every cluster is joined to its control-flow node.
        joined = {re.search(r'lhead="([^"]+)"', a).group(1) for _, _, a in edges
                  if 'lhead=' in a}
        assert joined == set(_CLUSTER.findall(dot)) and joined
        # One connected picture: union-find over edges, counting cluster joins.
        parent = {n: n for n in nodes}

        def find(n):
            while parent[n] != n:
                n = parent[n]
            return n
        for src, dst, _ in edges:
            parent[find(src)] = find(dst)
        assert len({find(n) for n in nodes}) == 1


def test_early_exit_labels_say_types_and_values(early_exit_dots):
    dot = early_exit_dots['steps_to_exceed']
    assert '"limit" [label="limit: int32[]"' in dot
    assert '"max_steps" [label="max_steps: int32[]"' in dot
    assert '[label="False : bool"' in dot and '[label="2 : int32"' in dot
    assert '"while" [label="while", tooltip="while", fillcolor="#fff2b3"];' in dot
    assert 'label="while body";' in dot and 'label="cond true";' in dot
    # Loop variables carry the user's names: in the subgraphs and on the while's outputs.
    assert '"while" -> "Identity" [label="steps: int32[]"];' in dot
    assert '"while" -> "Identity_1" [label="value: int32[]"];' in dot
    # The outputs of a staged if are named after the variables it assigns.
    assert ('"while/body_graph/cond_1" -> "while/body_graph/return" '
            '[label="steps: int32[]"];') in dot
    other = early_exit_dots['first_index_above']
    assert '"cond" -> "Identity" [label="return_value: int32[]"];' in other
    assert '"cond/false_graph/do_return" [label="do_return: bool[]"' in other
    assert '"while/body_graph/steps" [label="steps: int32[]"' in dot
    assert '"while/cond_graph/break" [label="break: bool[]"' in dot
    assert 'loop_var' not in dot
    # The test that decided whether the loop is staged left no node behind (it ran in a
    # discarded graph): limit's only consumer is the while node.
    assert [line for line in dot.splitlines() if line.startswith('  "limit" -> ')] == [
        '  "limit" -> "while" [label="int32[]"];']
    assert '  "greater_equal" [' not in dot and '"while/body_graph/greater_equal" [' in dot


@pytest.mark.skipif(shutil.which('dot') is None, reason='Graphviz (dot) is not installed')
def test_early_exit_renders_small(early_exit_dots, tmp_path):
    for name, dot in early_exit_dots.items():
        png = tmp_path / (name + '.png')
        subprocess.run(['dot', '-Tpng', '-o', str(png)], input=dot, text=True, check=True,
                       timeout=120)
        width, height = struct.unpack('>II', png.read_bytes()[16:24])
        # Looked at by hand: about 1420x820 and 1690x850 (a 4815x1141 strip before).
        assert width <= 2000 and height <= 1500, (name, width, height)
