"""Tests for pyct/templates.py."""

import gast
import pytest

from autograph.pyct import anno
from autograph.pyct import parser
from autograph.pyct import qual_names
from autograph.pyct import templates


def test_replace_names_functions_and_statement_lists():
    body = [parser.parse('x = 1')]
    nodes = templates.replace('''
        def fn_name(a):
            nonlocal x
            body
        ag__.if_stmt(cond, fn_name, (x,))
    ''', fn_name='if_body', body=body, cond=parser.parse_expression('a > 1'), x='y')
    assert parser.unparse(nodes) == (
        'def if_body(a):\n    nonlocal y\n    x = 1\nag__.if_stmt((a > 1), if_body, (y,))\n')


def test_store_context_is_set_on_targets():
    nodes = templates.replace('target = value', target=qual_names.QN(qual_names.QN('a'), attr='b'),
                              value=gast.Constant(value=1, kind=None))
    assert isinstance(nodes[0].targets[0].ctx, gast.Store)
    assert parser.unparse(nodes) == 'a.b = 1\n'


def test_second_use_of_a_node_is_a_copy():
    expr = parser.parse_expression('f(x)')
    nodes = templates.replace('a = e\nb = e', e=expr)
    assert nodes[0].value is expr and nodes[1].value is not expr
    assert parser.unparse(nodes) == 'a = f(x)\nb = f(x)\n'


def test_replace_as_expression():
    node = templates.replace_as_expression('ag__.ld(v)', v='x')
    assert parser.unparse(node).strip() == 'ag__.ld(x)'
    with pytest.raises(ValueError, match='single expression'):
        templates.replace_as_expression('a = 1')


def test_template_nodes_have_no_locations():
    nodes = templates.replace('a = 1')
    assert getattr(nodes[0], 'lineno', None) is None


def test_copy_clean():
    node = parser.parse('x = y + 1')
    copy = templates.copy_clean(node)
    assert copy is not node and copy.value is not node.value
    assert parser.unparse(copy) == parser.unparse(node)
    assert copy.lineno == node.lineno
    assert getattr(templates.copy_clean(node, keep_locations=False), 'lineno', None) is None


def _generated(nodes):
    """The ids of the names in `nodes` marked as generated, and of the others."""
    names = [n for n in gast.walk(gast.Module(body=nodes, type_ignores=[]))
             if isinstance(n, gast.Name)]
    return (sorted(n.id for n in names if anno.hasanno(n, anno.Basic.GENERATED)),
            sorted(n.id for n in names if not anno.hasanno(n, anno.Basic.GENERATED)))


def test_the_names_of_a_templates_own_text_are_marked_generated():
    first = templates.replace('r = ag__.f(a, ag__.g)', r='out', a=parser.parse_expression('x'))
    # the second fill of a template reads the process's cache: marked all the same
    second = templates.replace('r = ag__.f(a, ag__.g)', r='out', a=parser.parse_expression('x'))
    for nodes in (first, second):
        assert _generated(nodes) == (['ag__', 'ag__'], ['out', 'x'])


def test_copy_clean_keeps_the_generated_mark_only():
    node = templates.replace_as_expression('ag__.f(a)', a='x')
    anno.setanno(node.func.value, anno.Basic.QN, 'a stale annotation')
    copy = templates.copy_clean(node)
    assert anno.hasanno(copy.func.value, anno.Basic.GENERATED)
    assert anno.keys(copy.func.value) == {anno.Basic.GENERATED}
    assert anno.keys(copy.args[0]) == frozenset()


# -- the file of parsed templates (next to the module's bytecode) ----------------------------

@pytest.fixture
def template_file(tmp_path, monkeypatch):
    """Points the file of parsed templates into tmp_path, with the process's cache empty."""
    monkeypatch.setattr(templates, '__cached__', str(tmp_path / 'pycache' / 'templates.pyc'))
    _new_process(monkeypatch)
    monkeypatch.setattr(templates.sys, 'dont_write_bytecode', False)
    return tmp_path / 'pycache' / 'templates.templates'


def _new_process(monkeypatch):
    """Forgets what this process parsed, as a new process would."""
    monkeypatch.setattr(templates, '_TEMPLATE_CACHE', {})
    monkeypatch.setattr(templates, '_DISK_ENTRIES', {})
    monkeypatch.setattr(templates, '_disk', [False, None, None])


def _no_parse(template):
    raise AssertionError('parsed %r instead of reading it from the file' % template)


_TEMPLATE = 'def fn_name(a):\n    nonlocal x\n    target = ag__.f(a, k=x)\n    body'


def _fill():
    return parser.unparse(templates.replace(
        _TEMPLATE, fn_name='g', x='y', target=qual_names.QN('t'),
        body=[parser.parse('return 1')]))


def test_a_new_process_reads_parsed_templates_from_the_file(template_file, monkeypatch):
    expected = _fill()
    assert expected == 'def g(a):\n    nonlocal y\n    t = ag__.f(a, k=y)\n    return 1\n'
    assert template_file.exists()
    _new_process(monkeypatch)
    monkeypatch.setattr(templates, '_parse', _no_parse)
    assert _fill() == expected


def test_templates_read_from_the_file_are_marked_generated(template_file, monkeypatch):
    _fill()
    _new_process(monkeypatch)
    monkeypatch.setattr(templates, '_parse', _no_parse)
    nodes = templates.replace(_TEMPLATE, fn_name='g', x='y', target=qual_names.QN('t'),
                              body=[parser.parse('return 1')])
    # the parameter `a` and its use are the template's text too; `t` and `y` replacements
    assert _generated(nodes) == (['a', 'a', 'ag__'], ['t', 'y'])


def test_a_file_with_another_key_is_not_used(template_file, monkeypatch):
    expected = _fill()
    _new_process(monkeypatch)
    # as if ast_convert.py had changed since the file was written
    monkeypatch.setattr(templates, '_cache_file', lambda: (str(template_file), ('other',)))
    parsed = []
    real_parse = templates._parse
    monkeypatch.setattr(templates, '_parse', lambda t: parsed.append(t) or real_parse(t))
    assert _fill() == expected
    assert parsed == [_TEMPLATE]


def test_the_key_follows_the_sources_and_versions(template_file):
    path, key = templates._cache_file()
    assert path == str(template_file)
    assert key[1] == templates.sys.version and key[2] == templates.gast.__version__
    assert len(key[3]) == 2  # templates.py and ast_convert.py: (mtime, size) each


def test_a_corrupt_file_is_ignored(template_file, monkeypatch, recwarn):
    expected = _fill()
    template_file.write_bytes(b'\x00not marshal')
    _new_process(monkeypatch)
    assert _fill() == expected
    assert not recwarn.list


def test_every_flipped_byte_of_the_file_is_detected_and_the_file_removed(template_file,
                                                                       monkeypatch):
    # Before the file had a digest, a truncated file made EOFError escape convert, and a
    # changed byte could change a template (the generated code) silently.
    expected = _fill()
    good = template_file.read_bytes()
    for position in range(len(good)):
        data = bytearray(good)
        data[position] ^= 0x20
        template_file.write_bytes(bytes(data))
        _new_process(monkeypatch)
        monkeypatch.setattr(templates.sys, 'dont_write_bytecode', True)  # (nothing rewritten)
        assert _fill() == expected, position
        assert not template_file.exists(), position
    template_file.write_bytes(good[:len(good) // 2])  # truncated
    _new_process(monkeypatch)
    assert _fill() == expected


def test_an_unwritable_directory_falls_back_to_parsing_silently(tmp_path, monkeypatch,
                                                                  recwarn):
    (tmp_path / 'pycache').write_text('a file where the directory should be')
    monkeypatch.setattr(templates, '__cached__', str(tmp_path / 'pycache' / 'templates.pyc'))
    _new_process(monkeypatch)
    monkeypatch.setattr(templates.sys, 'dont_write_bytecode', False)
    assert _fill() == 'def g(a):\n    nonlocal y\n    t = ag__.f(a, k=y)\n    return 1\n'
    assert templates._disk[1] is None  # no further tries in this process
    assert _fill() == 'def g(a):\n    nonlocal y\n    t = ag__.f(a, k=y)\n    return 1\n'
    assert not recwarn.list
    assert [p.name for p in tmp_path.iterdir()] == ['pycache']


def test_nothing_is_written_without_bytecode_writing(template_file, monkeypatch):
    monkeypatch.setattr(templates.sys, 'dont_write_bytecode', True)
    _fill()
    assert not template_file.exists()


def test_a_new_process_decodes_only_the_templates_it_uses(template_file, monkeypatch):
    expected = _fill()
    templates.replace('other = 1')
    _new_process(monkeypatch)
    monkeypatch.setattr(templates, '_parse', _no_parse)
    assert _fill() == expected
    assert sorted(templates._DISK_ENTRIES) == sorted([_TEMPLATE, 'other = 1'])
    assert list(templates._TEMPLATE_CACHE) == [_TEMPLATE]
