"""Converted Python control flow next to the same code written by hand with torch.cond and
torch.while_loop, and next to the default torch.compile with its graph breaks.

Run `python -m benchmarks.torch_cond [--quick] [--device cuda]`. For each workload below,
the plain Python function is exported with `autograph.backends.torch.export` and the
hand-written one with `torch.export.export`; it reports, with targets:

- steady call: median time per call of the exported program's module (target: within 1.1x
  of the hand-written program);
- compile time: one `torch.export.export` (target: within 1.2x);
- graph nodes: operations of the exported graph, counted through the cond branches and loop
  bodies (target: within 1.2x), and of the forward graph that torch.compile(fullgraph=True)
  makes of a call under torch.no_grad() (`no_grad`, the same target);
- and, for the original function under the default `torch.compile` (no fullgraph): its
  graph count and graph breaks (`torch._dynamo.explain`), and its steady call.

It first checks that all three give the same result. Contenders are timed in alternation,
round after round, each going first in every other round, so that a change in the machine's
load hits both alike. `--quick` is a smoke run (its timings mean nothing).
"""
import argparse
import os
import statistics
import sys
import time

if __package__ in (None, ""):  # `python benchmarks/torch_cond.py`: make the repository importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

from autograph.backends import torch as ag_torch  # noqa: E402
from benchmarks.workloads import collatz  # noqa: E402 - plain Python, the same on tensors

TARGETS = {"steady": 1.1, "compile": 1.2, "nodes": 1.2}


# -- workloads: plain Python, and the same written by hand -----------------------------------

def collatz_hand(n):
    def body(n, steps):
        n = torch.cond(n % 2 == 0, lambda n: n // 2, lambda n: 3 * n + 1, (n,))
        return n, steps + 1
    return torch.while_loop(lambda n, steps: n > 1, body, (n, torch.zeros_like(n)))[1]


def tanh_loop(x):
    while x.sum() > 1:
        x = torch.tanh(x)
    return x


def tanh_loop_hand(x):
    return torch.while_loop(lambda x: x.sum() > 1, lambda x: (torch.tanh(x),), (x,))[0]


def tanh_loop_trained_hand(x):
    """tanh_loop by hand as torch 2.13 needs it for a correct gradient: its while_loop,
    differentiated, counts a loop that runs zero times as one iteration (docs/torch.md,
    "Gradients"), so the loop runs under a torch.cond on its own test."""
    def test(x):
        return x.sum() > 1

    def loop(x):
        return torch.while_loop(test, lambda x: (torch.tanh(x),), (x,))[0]
    return torch.cond(test(x), loop, lambda x: x.clone(), (x,))


def sign_scale(x, w):
    if x.sum() > 0:
        y = x * 2 + w
    else:
        y = x - w
    return y


def sign_scale_hand(x, w):
    return torch.cond(x.sum() > 0, lambda x, w: x * 2 + w, lambda x, w: x - w, (x, w))


def first_match(scores, threshold):
    found = -1
    i = 0
    for score in scores:
        if score > threshold:
            found = i
            break
        i += 1
    return found


def first_match_hand(scores, threshold):
    def test(i, found):
        return (i < scores.shape[0]) & (found < 0)

    def body(i, found):  # scores[i] with a traced i: torch 2.13's export refuses it here
        score = scores.index_select(0, i.reshape(1)).squeeze(0)
        return i + 1, torch.where(score > threshold, i, found)
    start = torch.zeros((), dtype=torch.int64, device=scores.device)
    return torch.while_loop(test, body, (start, start - 1))[1]


# What a workload's hand-written code does not do that the converted code must: its graph
# nodes are shown but held to no target, and the workload after it is the fair comparison.
UNGUARDED = ("its hand-written loop lacks the torch.cond that torch 2.13 needs for a correct "
             "gradient of a loop run zero times (docs/torch.md); tanh_trained is the same loop "
             "written with it, and under no_grad the converted loop needs none")
NOTES = {"tanh_loop": UNGUARDED}

WORKLOADS = (
    ("collatz", collatz, collatz_hand, lambda: (torch.tensor(27),)),
    ("tanh_loop", tanh_loop, tanh_loop_hand, lambda: (torch.full((8,), 3.0),)),
    ("tanh_trained", tanh_loop, tanh_loop_trained_hand, lambda: (torch.full((8,), 3.0),)),
    ("sign_scale", sign_scale, sign_scale_hand, lambda: (torch.randn(16), torch.randn(16))),
    ("first_match", first_match, first_match_hand,
     lambda: (torch.linspace(0.0, 1.0, 64), torch.tensor(0.7))),
)


class FunctionModule(torch.nn.Module):
    """An `nn.Module` whose forward is `fn`: what torch.export.export takes."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


# -- measurements ---------------------------------------------------------------------------

def count_nodes(graph_module):
    """Operations of a graph module and of its subgraphs (branches and loop bodies)."""
    return sum(1 for module in graph_module.modules() if isinstance(module, torch.fx.GraphModule)
               for node in module.graph.nodes if node.op == "call_function")


def forward_graphs_backend():
    """A torch.compile backend (AOTAutograd, its graphs run as traced) and the list it fills
    with the forward graphs it is given (the backward graphs are not kept)."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    graphs = []

    def keep(graph_module, _):
        graphs.append(graph_module)
        return make_boxed_func(graph_module)
    return aot_autograd(fw_compiler=keep, bw_compiler=lambda gm, _: make_boxed_func(gm)), graphs


def _inference_nodes(key, fn, args):
    """Operations of the forward graph that torch.compile(fullgraph=True) makes of `fn`
    called under torch.no_grad()."""
    backend, graphs = forward_graphs_backend()
    compile_ = ag_torch.compile if key == "converted" else torch.compile
    torch._dynamo.reset()
    with torch.no_grad():
        compile_(fn, fullgraph=True, backend=backend)(*args)
    return count_nodes(graphs[-1])


def _export(key, fn, args):
    if key == "converted":
        return ag_torch.export(fn, args)
    return torch.export.export(FunctionModule(fn), args)


def _seconds(fn, args, calls):
    sync = torch.cuda.synchronize if any(a.is_cuda for a in args) else (lambda: None)
    fn(*args)
    sync()
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    sync()  # the calls' kernels finished, not only launched
    return (time.perf_counter() - start) / calls


def _same(a, b):
    a, b = torch.as_tensor(a), torch.as_tensor(b)
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), rtol=1e-5, atol=1e-6)


def _default_compile(fn, args, calls):
    """The original function under the default torch.compile: (graphs, breaks, steady call)."""
    torch._dynamo.reset()
    explanation = torch._dynamo.explain(fn)(*args)
    compiled = torch.compile(fn)
    return (explanation.graph_count, explanation.graph_break_count,
            _seconds(compiled, args, calls))


def measure(workload, rounds, calls, device="cpu"):
    """Returns the record of one workload: the contenders' figures and their ratios."""
    name, plain, hand, make_inputs = workload
    torch.manual_seed(0)
    args = tuple(a.to(device) for a in make_inputs())
    contenders = (("hand", hand), ("converted", plain))
    programs = {key: _export(key, fn, args) for key, fn in contenders}
    modules = {key: program.module() for key, program in programs.items()}
    expected = plain(*args)
    record = {"name": name, "match": all(_same(modules[key](*args), expected)
                                         for key in modules)}
    times = {key: {"compile": [], "steady": []} for key, _ in contenders}
    for index in range(rounds):
        order = contenders if index % 2 == 0 else contenders[::-1]
        for key, fn in order:
            start = time.perf_counter()
            _export(key, fn, args)
            times[key]["compile"].append(time.perf_counter() - start)
        for key, _ in order:
            times[key]["steady"].append(_seconds(modules[key], args, calls))
    for key, fn in contenders:
        record[key] = {"nodes": count_nodes(programs[key].graph_module),
                       "inference_nodes": _inference_nodes(key, fn, args),
                       "compile": statistics.median(times[key]["compile"]),
                       "steady": statistics.median(times[key]["steady"])}
    for key in (*TARGETS, "inference_nodes"):
        record[key + "_ratio"] = record["converted"][key] / record["hand"][key]
    graphs, breaks, steady = _default_compile(plain, args, calls)
    record["default_compile"] = {"graphs": graphs, "breaks": breaks, "steady": steady}
    return record


def _us(seconds):
    return "{:9.1f} us".format(seconds * 1e6)


def _ratio(record, key, target):
    """`key 1.05`, marked `!` above its target, `*` where NOTES holds the workload to none."""
    ratio = record[key + "_ratio"]
    untargeted = key == "nodes" and record["name"] in NOTES
    mark = "*" if untargeted else ("" if ratio <= target else "!")
    return "{} {:.2f}{}".format({"inference_nodes": "no_grad"}.get(key, key), ratio, mark)


def _row(record):
    h, c, d = record["hand"], record["converted"], record["default_compile"]
    default = ("{} graphs {} breaks".format(d["graphs"], d["breaks"]) if d["graphs"]
               else "no graph (eager)")
    ratios = [_ratio(record, k, t) for k, t in TARGETS.items()]
    ratios.append(_ratio(record, "inference_nodes", TARGETS["nodes"]))
    return "{:<12} {}/{} {:8.1f}/{:<6.1f}ms {:>4}/{:<4} {:>4}/{:<4} {:>18} {}  {}{}".format(
        record["name"], _us(h["steady"]), _us(c["steady"]).strip(), h["compile"] * 1e3,
        c["compile"] * 1e3, h["nodes"], c["nodes"], h["inference_nodes"],
        c["inference_nodes"], default, _us(d["steady"]), " ".join(ratios),
        "" if record["match"] else "  RESULTS DIFFER")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round, one call: a smoke run")
    parser.add_argument("--device", default="cpu", help="the inputs' device (cuda on a GPU)")
    opts = parser.parse_args(argv)
    rounds, calls = (1, 1) if opts.quick else (5, 20)
    print("torch {} on {}; medians of {} rounds".format(torch.__version__, opts.device, rounds))
    print("{:<12} {:>25} {:>21} {:>9} {:>9} {:>31}  {}".format(
        "workload", "steady hand/conv", "export hand/conv", "nodes", "no_grad",
        "default compile", "ratios (targets)"))
    records = []
    for workload in WORKLOADS:
        records.append(measure(workload, rounds, calls, opts.device))
        print(_row(records[-1]))
    for name, note in NOTES.items():
        print("* {}: {}".format(name, note))
    return records


if __name__ == "__main__":
    main()
