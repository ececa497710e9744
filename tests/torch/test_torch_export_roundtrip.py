"""An exported program saved with torch.export.save runs after torch.export.load in a fresh
process whose user source is gone, with the outputs of plain Python on every path."""

import json
import textwrap

import torch

from autograph.backends import torch as ag_torch
from tests.checkout import run_python

SOURCE = textwrap.dedent('''
    import torch

    class Gate(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = torch.nn.Parameter(torch.tensor([1.5, -0.5, 2.0]))

        def forward(self, x, limit):
            if x.sum() > 0:
                y = x * self.scale
            else:
                y = -x
            steps = 0
            while y.abs().max() < limit:
                y = y * 2
                steps += 1
            assert steps < 100, 'no progress'
            return y, steps
    ''')

# inputs taking every path: the if and the else; zero, one and several iterations
INPUTS = [([1.0, 2.0, -0.5], 3.0), ([-1.0, 0.5, 0.25], 0.5), ([0.5, 0.25, 0.5], 1.0),
          ([-0.1, -0.2, 0.1], 5.0)]


def test_saved_program_runs_in_a_fresh_process_without_its_source(tmp_path):
    module_file = tmp_path / 'gate_model.py'
    module_file.write_text(SOURCE)
    namespace = {}
    exec(compile(SOURCE, str(module_file), 'exec'), namespace)  # the user's file and lines
    model = namespace['Gate']()
    expected = [[v.tolist() if isinstance(v, torch.Tensor) else v
                 for v in model(torch.tensor(x), torch.tensor(limit))] for x, limit in INPUTS]
    program = ag_torch.export(model, (torch.tensor(INPUTS[0][0]), torch.tensor(INPUTS[0][1])))
    saved = tmp_path / 'gate.pt2'
    torch.export.save(program, str(saved))
    module_file.unlink()  # the source is gone

    script = textwrap.dedent('''
        import json, sys
        import torch
        import autograph.backends.torch  # the autograph::check operator of the assert
        program = torch.export.load(sys.argv[1])
        outputs = []
        for x, limit in json.loads(sys.argv[2]):
            y, steps = program.module()(torch.tensor(x), torch.tensor(limit))
            outputs.append([y.tolist(), steps.item()])
        print(json.dumps(outputs))
        ''')
    done = run_python(['-c', script, str(saved), json.dumps(INPUTS)], cwd=str(tmp_path),
                      timeout=300)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert [s for _, s in got] == [s for _, s in expected]
    assert {s for _, s in got} >= {0, 1} and max(s for _, s in got) > 1  # every path
    for (y, _), (want, _) in zip(got, expected):
        assert torch.allclose(torch.tensor(y), torch.tensor(want))


RAISING = textwrap.dedent('''
    class InputTooLarge(ValueError):
        pass

    def clip(n):
        if n > 10:
            raise InputTooLarge('n is too large')
        return n + 1
    ''')


def test_a_staged_raise_of_the_users_class_raises_it_here_and_names_it_after_loading(
        tmp_path):
    module_file = tmp_path / 'clipping.py'
    module_file.write_text(RAISING)
    namespace = {}
    exec(compile(RAISING, str(module_file), 'exec'), namespace)
    program = ag_torch.export(namespace['clip'], (torch.tensor(3),))
    assert program.module()(torch.tensor(4)).item() == 5
    try:
        program.module()(torch.tensor(12))
    except namespace['InputTooLarge'] as error:  # the class itself, in this process
        assert str(error) == 'n is too large'
    else:
        raise AssertionError('the staged raise did not raise')
    saved = tmp_path / 'clip.pt2'
    torch.export.save(program, str(saved))
    module_file.unlink()

    script = textwrap.dedent('''
        import sys
        import torch
        import autograph.backends.torch
        module = torch.export.load(sys.argv[1]).module()
        print(module(torch.tensor(4)).item())
        try:
            module(torch.tensor(12))
        except RuntimeError as error:
            print(type(error).__name__, error)
        ''')
    done = run_python(['-c', script, str(saved)], cwd=str(tmp_path), timeout=300)
    lines = done.stdout.strip().splitlines()
    assert lines[-2:] == ['5', 'RuntimeError InputTooLarge: n is too large']
