"""The unconvertible-function warning: once per function, at the user's line, per file."""
import importlib.util
import warnings

import autograph as ag

_SOURCE = "def gen(n):\n    yield n\n"


def _load(tmp_path, name):
    path = tmp_path / (name + ".py")
    path.write_text(_SOURCE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


def test_equal_code_in_two_files_warns_for_each_file(tmp_path):
    # The two code objects compare equal (equality ignores co_filename): each still warns once,
    # naming its own file.
    first, first_path = _load(tmp_path, "first_mod")
    second, second_path = _load(tmp_path, "second_mod")
    assert first.gen.__code__ == second.gen.__code__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ag.convert(first.gen)
        ag.convert(first.gen)
        ag.convert(second.gen)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2
    assert "gen (defined at %s:1)" % first_path in messages[0]
    assert "gen (defined at %s:1)" % second_path in messages[1]


def test_warning_points_at_the_users_line(tmp_path):
    module, _ = _load(tmp_path, "third_mod")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ag.convert(module.gen)  # the warning's location is this line
    assert len(caught) == 1
    assert caught[0].filename == __file__
