"""An early-exit search, compiled with torch.compile(fullgraph=True): the loop stops at the
first element whose running score passes a threshold (a `for` over a tensor with `break`).

    python examples/torch_early_exit.py
"""

import torch

from autograph.backends import torch as ag_torch


def first_match(rows, query, threshold):
    """The index of the first row whose similarity to `query` exceeds `threshold`, or -1."""
    found = -1
    i = 0
    for score in rows @ query:
        if score > threshold:
            found = i
            break
        i += 1
    return found


def main():
    rows = torch.tensor([[0.1, 0.2], [0.9, 0.1], [0.5, 0.5], [1.0, 1.0]])
    example = (rows, torch.tensor([1.0, 0.0]), torch.tensor(0.8))
    program = ag_torch.export(first_match, example)  # the loop: torch.while_loop
    search = torch.compile(program.module(), fullgraph=True, backend='eager')
    for query, threshold in (([1.0, 0.0], 0.8), ([0.0, 1.0], 0.4), ([1.0, 1.0], 5.0)):
        query, threshold = torch.tensor(query), torch.tensor(threshold)
        found = search(rows, query, threshold)
        assert found.item() == first_match(rows, query, threshold)
        print('query %-11s threshold %.1f -> row %d' % (query.tolist(), threshold.item(),
                                                         found.item()))
    explanation = torch._dynamo.explain(program.module())(*example)
    print('graphs: %d, graph breaks: %d' % (explanation.graph_count,
                                            explanation.graph_break_count))


if __name__ == '__main__':
    main()
