"""The `autograph` logger and TensorFlow's verbosity levels (autograph/impl/logs.py)."""

import logging
import textwrap
import warnings

import pytest

import autograph as ag
from autograph.impl import logs
from tests.checkout import checkout_env
from tests.checkout import run_python



@pytest.fixture(autouse=True)
def _verbosity_restored():
    yield
    logs.reset_verbosity()


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name == 'autograph']


def test_level_0_logs_nothing(caplog):
    def level0(x):
        return x + 1
    ag.set_verbosity(0)
    with caplog.at_level(logging.DEBUG, logger='autograph'):
        assert ag.convert(level0)(1) == 2
    assert _messages(caplog) == []


def test_level_1_logs_the_top_level_conversion_and_converted_calls(caplog):
    def level1(x):
        if x > 0:
            x = x - 1
        return abs(x)
    ag.set_verbosity(1)
    with caplog.at_level(logging.INFO, logger='autograph'):
        assert ag.convert(level1)(3) == 2
        assert ag.convert(level1)(3) == 2
    messages = _messages(caplog)
    line = level1.__code__.co_firstlineno
    assert messages[0] == ('Converting test_level_1_logs_the_top_level_conversion_and_converted'
                           '_calls.<locals>.level1 (defined at %s:%d)' % (__file__, line))
    assert sum(m.startswith('Converting ') for m in messages) == 1  # the second is cached
    calls = [m for m in messages if m.startswith('Converted call: ')]
    assert calls == ['Converted call: <built-in function abs>\n    args: (2,)\n'
                     '    kwargs: None\n'] * 2
    assert not any('Generated code' in m or 'Cache hit' in m for m in messages)
    assert all(r.levelno == logging.INFO for r in caplog.records if r.name == 'autograph')


def test_level_2_adds_the_generated_code(caplog):
    def level2(x):
        while x > 10:
            x = x // 2
        return x
    ag.set_verbosity(2)
    with caplog.at_level(logging.INFO, logger='autograph'):
        ag.convert(level2)(40)
        ag.convert(level2)(40)
    messages = _messages(caplog)
    generated = [m for m in messages if m.startswith('Generated code of ')]
    assert generated == ['Generated code of %s:\n\n%s\n' % (level2.__qualname__,
                                                             ag.to_code(level2))]
    assert 'ag__.while_stmt(' in generated[0]
    assert not any(m.startswith('Cache hit') for m in messages)


def test_level_3_adds_cache_hits(caplog):
    def level3(x):
        return -x if x < 0 else x
    ag.set_verbosity(3)
    with caplog.at_level(logging.INFO, logger='autograph'):
        ag.convert(level3)(-2)
        ag.convert(level3)(-2)
    messages = _messages(caplog)
    assert any(m.startswith('Generated code of ') for m in messages)
    hits = [m for m in messages if m.startswith('Cache hit')]
    assert hits == ['Cache hit for %s: converted function reused' % level3.__qualname__]


def test_level_10_logs_everything(caplog):
    def level10(x):
        return -x if x < 0 else x
    ag.set_verbosity(10)
    with caplog.at_level(logging.INFO, logger='autograph'):
        ag.convert(level10)(-2)
        ag.convert(level10)(-2)
    kinds = {m.split(' ')[0] for m in _messages(caplog)}
    assert kinds == {'Converting', 'Generated', 'Cache'}


def test_alsologtostdout_echoes_with_tensorflows_prefix(capsys):
    def echoed(x):
        return x * 2
    ag.set_verbosity(1, alsologtostdout=True)
    assert ag.convert(echoed)(2) == 4
    out = capsys.readouterr().out
    assert out.startswith('INFO: Converting test_alsologtostdout_echoes_with_tensorflows'
                          '_prefix.<locals>.echoed (defined at ')


def test_unconverted_function_is_said_once_through_the_logger(caplog):
    def gen_logged():
        yield 1
    with caplog.at_level(logging.WARNING, logger='autograph'):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            assert list(ag.convert(gen_logged)()) == [1]
            assert list(ag.convert(gen_logged)()) == [1]
    records = [r for r in caplog.records if r.name == 'autograph']
    assert len(records) == 1 and records[0].levelno == logging.WARNING
    assert records[0].getMessage().startswith(
        'AutoGraph could not convert %s (defined at %s:%d): a generator function (yield)'
        % (gen_logged.__qualname__, __file__, gen_logged.__code__.co_firstlineno))
    assert [str(w.message) for w in caught] == [records[0].getMessage()]


_SCRIPT = textwrap.dedent('''
    import autograph as ag

    def double(x):
        if x > 0:
            x = x * 2
        return x

    {before}
    print(ag.convert(double)(3))
''')


def _run(tmp_path, before, env_level):
    env = checkout_env()
    env.pop('AUTOGRAPH_VERBOSITY', None)
    if env_level is not None:
        env['AUTOGRAPH_VERBOSITY'] = env_level
    path = tmp_path / 'logged.py'
    path.write_text(_SCRIPT.format(before=before))
    return run_python([str(path)], env=env)


def test_environment_variable_without_any_logging_configuration(tmp_path):
    done = _run(tmp_path, '', '1')
    assert done.stdout == '6\n'
    assert done.stderr.startswith('INFO: Converting double (defined at ')
    assert 'Generated code' not in done.stderr


def test_set_verbosity_takes_precedence_over_the_environment(tmp_path):
    done = _run(tmp_path, 'ag.set_verbosity(0)', '2')
    assert done.stdout == '6\n' and done.stderr == ''
    done = _run(tmp_path, 'ag.set_verbosity(2)', None)
    assert 'INFO: Generated code of double:\n\ndef tf__double(x):' in done.stderr


def test_a_configured_handler_receives_the_records(tmp_path):
    done = _run(tmp_path, 'import logging\nlogging.basicConfig(format="%(name)s %(levelname)s '
                '%(message)s")\nag.set_verbosity(1)', None)
    assert done.stderr.startswith('autograph INFO Converting double (defined at ')
