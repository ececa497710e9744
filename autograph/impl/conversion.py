"""The conversion pipeline (parse, analyse, convert, load) and its per-code-object cache."""

import collections
import inspect
import types

import gast

from autograph import errors
from autograph.converters import aliases
from autograph.converters import asserts
from autograph.converters import break_statements
from autograph.converters import call_trees
from autograph.converters import conditional_expressions
from autograph.converters import continue_statements
from autograph.converters import control_flow
from autograph.converters import directives
from autograph.converters import functions
from autograph.converters import generators
from autograph.converters import lists
from autograph.converters import logical_expressions
from autograph.converters import match_statements
from autograph.converters import named_expressions
from autograph.converters import return_statements
from autograph.converters import subscripts
from autograph.converters import variables
from autograph.impl import code_cache
from autograph.impl import collector
from autograph.impl import conversion_guards
from autograph.impl import disk_cache
from autograph.impl import error_mapping
from autograph.impl import logs
from autograph.pyct import anno
from autograph.pyct import cfg
from autograph.pyct import loader
from autograph.pyct import naming
from autograph.pyct import parser
from autograph.pyct import qual_names
from autograph.pyct import running_code
from autograph.pyct import templates
from autograph.pyct import transformer
from autograph.pyct import traversal
from autograph.pyct.static_analysis import activity
from autograph.pyct.static_analysis import liveness
from autograph.pyct.static_analysis import reaching_definitions



# code object -> _Factory, or the ConversionError that converting it raised
_CACHE = code_cache.CodeCache()
# The attribute of a user function that holds the result of instantiate(): (code, defaults,
# kwdefaults, options, converted function), reused while the function's code and defaults
# are unchanged. It is stored on the function, not in a table keyed on it: the converted
# function shares the original's globals, which (for a module-level function) hold the
# original, so a table's value would keep its own key, and the module, alive for good.
INSTANCE_ATTR = '__ag_instance__'

_FUTURE_FLAGS = running_code.FUTURE_FLAGS

# Converters that run before the analyses (they create the state variables the analyses
# must see). After the analyses come control_flow, then conditional_expressions,
# logical_expressions and variables (fused in one pass). The order is TensorFlow AutoGraph's.
_BEFORE_ANALYSIS = (functions, directives, generators, match_statements, named_expressions,
                    aliases, break_statements, asserts, continue_statements, return_statements,
                    lists, subscripts, call_trees)

# Stands for "a loop with an else clause" among the node kinds of a tree (check_supported).
LOOP_ELSE = 'loop-else'
_LOOPS = frozenset((gast.While, gast.For))
_NAME = gast.Name
# Converters that leave a tree alone unless it has one of these kinds of node (as the
# source was parsed; the converters before them add none but the noted ones): they are not
# run on other trees.
# A small function's first conversion then skips most of them (and their first run).
# - lists: a call (l.append) or a subscript (l[i] = x);
# - directives, call_trees: a call (a directive is a call; the calls
#   that earlier converters generate, through a name marked anno.Basic.GENERATED, are left
#   alone);
# - generators: a generator expression (as an argument of sum, any or all), a list
#   comprehension, or a list display (`[0] * n`);
# - subscripts: a subscript;
# - match_statements: a match statement;
# - named_expressions: an assignment expression (`:=`);
# - aliases: a subscript (`row[j] = v`) or a call (`row.append(v)`); it adds a call
#   (`enumerate(rows)` for `for row in rows:`, in ctx.added_kinds);
# - break_statements: a break, or a loop `else` (moved after a loop without a break), or an
#   assignment expression (named_expressions may add breaks);
# - asserts (assert and raise), continue_statements, return_statements: their statement.
_CONVERTER_KINDS = {
    directives: (gast.Call,),
    generators: (gast.GeneratorExp, gast.ListComp, gast.List),
    match_statements: (gast.Match,),
    named_expressions: (gast.NamedExpr,),
    aliases: (gast.Subscript, gast.Call),
    break_statements: (gast.Break, LOOP_ELSE, gast.NamedExpr),
    asserts: (gast.Assert, gast.Raise),
    continue_statements: (gast.Continue,),
    return_statements: (gast.Return,),
    lists: (gast.Call, gast.Subscript),
    subscripts: (gast.Subscript,),
    call_trees: (gast.Call,),
}


class _ExpressionConverters(conditional_expressions.ConditionalExpressionTransformer,
                            logical_expressions.LogicalExpressionTransformer,
                            variables.VariableAccessTransformer):
    """The three expression-level converters that follow control_flow, in one pass.

    They rewrite disjoint node types bottom-up, so one traversal gives the same tree as
    three consecutive ones.
    """

# Syntax that the converter does not support, with the words used to name it.
_UNSUPPORTED = {
    gast.Yield: 'a generator function (yield)',
    gast.YieldFrom: 'a generator function (yield from)',
    gast.Await: 'await',
    gast.AsyncFor: 'async for',
    gast.AsyncWith: 'async with',
    gast.AsyncFunctionDef: 'an async function',
    gast.TryStar: 'try/except*',
    gast.TypeAlias: 'a type alias statement (PEP 695)',
}
# The nodes that may have type parameters (gast gives them an empty list otherwise).
_GENERIC_DEFINITIONS = frozenset(
    c for c in vars(gast).values()
    if isinstance(c, type) and 'type_params' in getattr(c, '_fields', ()))


def check_supported(node, filename, kinds=None):
    """Raises if the tree uses syntax that the converter cannot convert faithfully.

    The same walk collects the tree's identifiers (naming.collect_names), for the Namer, and
    the kinds of node in it (see _CONVERTER_KINDS).

    Args:
      node: the gast tree of the entity.
      filename: its file, for the message.
      kinds: a set, or None; when given, it receives the classes of the nodes checked, and
        LOOP_ELSE when a loop has an `else` clause.

    Returns:
      The set of identifiers the tree binds or reads.

    Raises:
      UnsupportedSyntaxError: naming the construct and its line.
    """
    # Nested generator and async functions are marked SKIP: they stay plain Python inside
    # converted code (as TensorFlow leaves them), and what they contain is not checked (only
    # their names are collected).
    names = set()
    seen = set() if kinds is None else kinds
    skip = transformer.ConvAnno.SKIP
    stack = [node]
    while stack:
        n = stack.pop()
        cls = type(n)
        seen.add(cls)
        if n is not node and (cls is gast.AsyncFunctionDef or (
                cls is gast.FunctionDef and _is_generator(n))):
            anno.setanno(n, skip, True)
            names |= naming.collect_names(n)
            continue
        if anno.hasanno(n, skip):
            names |= naming.collect_names(n)
            continue
        if cls is _NAME:  # a third of all nodes: add_names and the rest, inlined
            names.add(n.id)
            seen.add(n.ctx.__class__)  # its context, which the walk would meet next
            if n.annotation is not None:  # a parameter's
                stack.append(n.annotation)
            continue
        naming.add_names(n, names)
        if cls in _LOOPS and n.orelse:
            seen.add(LOOP_ELSE)
        what = _UNSUPPORTED.get(cls)
        if what is None and cls in _GENERIC_DEFINITIONS and getattr(n, 'type_params', None):
            what = 'type parameters (PEP 695)'
        if what is not None:
            _unsupported(what, filename, n)
        stack.extend(traversal.iter_child_nodes(n))
    if gast.NamedExpr in seen:
        lazy = named_expressions.lazy_assignment(node)
        if lazy is not None:
            operand, where = lazy
            _unsupported('an assignment expression (:=) in %s' % where, filename, operand)
    return names


def _unsupported(what, filename, node):
    """Raises UnsupportedSyntaxError for the construct `what` at `node`'s line."""
    raise errors.UnsupportedSyntaxError(
        '%s at %s:%s is not supported' % (what, filename, getattr(node, 'lineno', '?')),
        construct=what)


def _is_generator(fn_node):
    """Whether a yield is anywhere in `fn_node` (its nested functions included)."""
    return any(isinstance(m, (gast.Yield, gast.YieldFrom)) for m in traversal.walk(fn_node))


def _namespace_of(fn):
    """The function's closure and global variables by name (closure first), not copied."""
    closure = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            closure[name] = cell.cell_contents
        except ValueError:  # an empty cell: the variable is not assigned yet
            pass
    return collections.ChainMap(closure, fn.__globals__)


def _class_of(fn):
    """The name of the class whose body defines `fn`, from its qualified name, or None."""
    parts = fn.__qualname__.split('.')
    if len(parts) < 2 or parts[-2] == '<locals>':
        return None
    return parts[-2]


def _mangle(name, prefix):
    if name.startswith('__') and not name.endswith('__') and '.' not in name:
        return prefix + name
    return name


def _mangle_private_names(node, class_name):
    """Applies class-private name mangling (`__x` -> `_Class__x`) to a method's tree.

    The compiler mangles these names inside a class body; the converted method is compiled
    outside of it, so the mangling is done on the tree.
    """
    if not class_name or not class_name.strip('_'):
        return
    prefix = '_' + class_name.lstrip('_')
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Name):
            n.id = _mangle(n.id, prefix)
        elif isinstance(n, gast.Attribute):
            n.attr = _mangle(n.attr, prefix)
        elif isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)) and n is not node:
            n.name = _mangle(n.name, prefix)
        elif isinstance(n, (gast.Global, gast.Nonlocal)):
            n.names = [_mangle(x, prefix) for x in n.names]
        elif isinstance(n, (gast.MatchAs, gast.MatchStar)) and n.name is not None:
            n.name = _mangle(n.name, prefix)  # a capture (a class pattern's attributes are not)
        elif isinstance(n, gast.MatchMapping) and n.rest is not None:
            n.rest = _mangle(n.rest, prefix)
        elif isinstance(n, gast.ClassDef):
            continue  # a nested class mangles with its own name; its body is not converted
        stack.extend(traversal.iter_child_nodes(n))


def _analyse(node, ctx):
    node = qual_names.resolve(node)
    graphs = cfg.build(node)
    node = activity.resolve(node, ctx, None)
    node = reaching_definitions.resolve(node, ctx, graphs, names=False)
    node = liveness.resolve(node, ctx, graphs)
    cfg.release(graphs)
    return node


def convert_tree(fn, check_code=True):
    """Parses and converts a function or lambda.

    Args:
      fn: a Python function.
      check_code: whether to check that the source is the code `fn` runs
        (running_code.check); `autograph dump` converts text whose code never ran.

    Returns:
      A tuple (converted gast FunctionDef or Lambda, EntityInfo).

    Raises:
      ConversionError: the source is unavailable or uses unsupported syntax.
    """
    with collector.paused():
        return conversion_guards.guarded(_convert_tree, fn, check_code)


def converted_source(fn, check_code=True):
    """Returns the source of `fn`'s conversion (convert_tree, unparsed).

    Args:
      fn: a Python function.
      check_code: as for convert_tree.

    Returns:
      The source, a string.

    Raises:
      ConversionError: the source is unavailable or uses unsupported syntax.
    """
    with collector.paused():
        return conversion_guards.guarded(_converted_source, fn, check_code)


def _converted_source(fn, check_code):
    node, _ = convert_tree(fn, check_code)
    return parser.unparse(node)


def _convert_tree(fn, check_code=True):
    node = parser.parse_entity(fn, check_code)
    filename = parser.source_filename(fn)
    _mangle_private_names(node, _class_of(fn))
    kinds = set()
    names = check_supported(node, filename, kinds)
    ctx = transformer.EntityInfo(fn.__name__, filename, naming.Namer(names))
    if not conversion_guards.FRAME_CALLS.isdisjoint(names):
        ctx.notes = conversion_guards.frame_call_notes(node, fn.__qualname__, filename)
    ctx.namespace = _namespace_of(fn)
    for converter in _BEFORE_ANALYSIS:
        needs = _CONVERTER_KINDS.get(converter)
        if needs is None or not kinds.isdisjoint(needs):
            node = converter.transform(node, ctx)
            kinds |= ctx.added_kinds
    if not isinstance(node, gast.Lambda):  # a lambda has no statements to analyse
        node = _analyse(node, ctx)
    node = control_flow.transform(node, ctx)
    node = _ExpressionConverters(ctx).visit(node)
    return node, ctx


class _Factory(object):
    """The loaded, converted code of one code object, ready to bind to function objects.

    Attributes:
      code: code object of `inner_factory(ag__)`, whose free variables are the original
        function's free variables; calling it returns the converted function.
    """

    __slots__ = ('code', 'cell_index', '__weakref__')

    def __init__(self, code, original_freevars):
        self.code = code
        # positions in the original function's closure of the cells `code` needs, or None
        # when it needs exactly the original closure
        if code.co_freevars == original_freevars:
            self.cell_index = None
        else:
            self.cell_index = tuple(original_freevars.index(n) for n in code.co_freevars)


_FACTORY_TEMPLATE = '''
def outer_factory():
    freevar_assigns
    def inner_factory(ag__):
        entity
        return entity_name
    return inner_factory
'''


def _build_factory(fn):
    with collector.paused():  # parse, convert and load; see collector.paused
        return conversion_guards.guarded(_build_factory_paused, fn)


def _build_factory_paused(fn):
    key = _disk_cache_key(fn)
    if key is not None:
        entry = disk_cache.load(key)
        if entry is not None:
            module_code, generated, checks, notes = entry
            namespace = _namespace_of(fn)
            if namespace and directives.checks_hold(checks, namespace):
                conversion_guards.warn(notes, fn.__code__)
                if logs.state[0] >= logs.CONVERSION:  # (level 2 and up bypass the disk cache)
                    logs.log(logs.CONVERSION, 'Conversion of %s loaded from the disk cache (%s)',
                             fn.__qualname__, disk_cache.directory())
                return _factory_from(module_code, fn, frozenset(generated))
    node, ctx = convert_tree(fn)
    conversion_guards.warn(ctx.notes, fn.__code__)
    if logs.has_verbosity(logs.GENERATED_CODE):
        logs.log(logs.GENERATED_CODE, 'Generated code of %s:\n\n%s\n', fn.__qualname__,
                 parser.unparse(node))
    code = fn.__code__
    if isinstance(node, gast.Lambda):
        entity_name = ctx.namer.new_symbol('tf__lambda')
        entity = templates.replace('entity_name = lam', entity_name=entity_name, lam=node)
        transformer.set_missing_locations(entity, node)
    else:
        entity_name = node.name
        entity = [node]
    freevar_assigns = []
    for name in code.co_freevars:
        freevar_assigns += templates.replace('name = None', name=name)
    module = templates.replace(
        _FACTORY_TEMPLATE, freevar_assigns=freevar_assigns, entity=entity,
        entity_name=entity_name)
    transformer.set_missing_locations(module, node)
    flags = code.co_flags & _FUTURE_FLAGS
    module_code = loader.compile_ast(module, ctx.filename, flags)
    if key is not None and ctx.namespace:
        disk_cache.store(key, module_code, sorted(ctx.namer.generated), ctx.directive_checks,
                         ctx.notes)
    return _factory_from(module_code, fn, ctx.namer.generated)


def _disk_cache_key(fn):
    """The disk-cache key of converting `fn`, or None when the disk cache does not apply."""
    if disk_cache.directory() is None or logs.has_verbosity(logs.GENERATED_CODE):
        return None
    return disk_cache.key_for(fn, parser.source_filename(fn), parser.source_lines(fn),
                              _class_of(fn), fn.__code__.co_flags & _FUTURE_FLAGS)


def _factory_from(module_code, fn, generated):
    """Runs the generated module and returns the _Factory of `fn`'s converted code."""
    inner = loader.load_code(module_code)['outer_factory']()
    code = _relabel(inner.__code__, fn.__name__, fn.__qualname__, generated, {}, top=True)
    return _Factory(code, fn.__code__.co_freevars)


def _relabel(code, label, qualname, generated, marks, top=False):
    """Names the code of generated helpers after the user function they belong to.

    Tracebacks then say `in f` for every frame of `f`'s converted code (if_body,
    loop_body, ...), and the code objects are marked as converted code (error_mapping.mark)
    for the error mapping and for converted_call (which never converts them again). User
    functions nested in `f` keep their own names, with qualified names under `f`'s.

    Args:
      code: a code object.
      label: the name of the user function that `code` belongs to.
      qualname: that function's qualified name.
      generated: the names the converters generated.
      marks: dict of user function name -> its error_mapping mark, filled as needed.
      top: whether `code` is the factory (not itself user code).

    Returns:
      The new code object.
    """
    name = code.co_name
    changes = {}
    # `generated` holds every name the converters made (the entity's `tf__f`, if_body, ...);
    # '<lambda>' is Python's own name for every lambda, whose frames belong to `f` too.
    if top or name in generated or name == '<lambda>':
        own, own_qualname = label, qualname
    else:
        own, own_qualname = name, '%s.<locals>.%s' % (qualname, name)
    if not top and name != '<lambda>':
        changes['co_name'] = own
        if hasattr(code, 'co_qualname'):
            changes['co_qualname'] = own_qualname
    # Class bodies are not converted (their methods convert when called): leave them and
    # everything in them unregistered.
    consts = tuple(
        _relabel(c, own, own_qualname, generated, marks)
        if hasattr(c, 'co_consts') and c.co_flags & inspect.CO_OPTIMIZED else c
        for c in code.co_consts)
    if not top:
        mark = marks.get(own)
        if mark is None:
            mark = marks[own] = error_mapping.mark(own)
        consts += (mark,)
    changes['co_consts'] = consts
    return code.replace(**changes)


def cached_factory(code):
    """Returns the factory already made for `code`, or None (not converted, or failed).

    Args:
      code: a code object.

    Returns:
      A _Factory or None.
    """
    entry = _CACHE.get(code)
    if type(entry) is _Factory:
        if logs.state[0] >= logs.CACHE_HITS:
            logs.log(logs.CACHE_HITS, 'Cache hit for %s (%s:%d): converted code reused',
                     code.co_name, code.co_filename, code.co_firstlineno)
        return entry
    return None


def get_factory(fn):
    """Returns the cached factory for `fn`'s code object, converting it the first time.

    Args:
      fn: a Python function.

    Returns:
      A _Factory.

    Raises:
      ConversionError: the function cannot be converted (also on later calls, from the cache).
    """
    code = fn.__code__
    entry = _CACHE.get(code)
    if entry is None:
        if logs.state[0] >= logs.CONVERSION:
            logs.log(logs.CONVERSION, 'Converting %s (defined at %s:%d)', fn.__qualname__,
                     code.co_filename, code.co_firstlineno)
        try:
            entry = _build_factory(fn)
        except errors.ConversionError as e:
            entry = e
        except (SyntaxError, ValueError, KeyError, TypeError, AttributeError, EOFError,
                RecursionError, MemoryError) as e:
            entry = errors.ConversionError('internal conversion failure: %s: %s'
                                           % (type(e).__name__, e))
            entry.__cause__ = e
        _CACHE[code] = entry
    if isinstance(entry, errors.ConversionError):
        raise entry
    return entry


def clear_cache():
    """Forgets every conversion, so that the next convert of any function starts cold."""
    _CACHE.clear()
    global _generation
    _generation += 1


# Bumped by clear_cache: instances remembered before it are not reused.
_generation = 0


def cached_instance(fn, options):
    """Returns the converted function made earlier for `fn` with `options`, or None.

    Args:
      fn: a Python function.
      options: the ConversionOptions it was converted with.

    Returns:
      The converted function, or None when there is none or `fn`'s code or defaults have
      been reassigned since.
    """
    entry = fn.__dict__.get(INSTANCE_ATTR)
    if (entry is not None and entry[0] is fn.__code__ and entry[1] is fn.__defaults__
            and entry[2] is fn.__kwdefaults__ and entry[3] == options
            and entry[5] == _generation):
        if logs.state[0] >= logs.CACHE_HITS:
            logs.log(logs.CACHE_HITS, 'Cache hit for %s: converted function reused',
                     fn.__qualname__)
        return entry[4]
    return None


def remember_instance(fn, options, converted):
    """Records `converted` as the conversion of `fn` with `options` (see cached_instance).

    The record lives on `fn` (see INSTANCE_ATTR), so it is freed with `fn`.
    """
    fn.__dict__[INSTANCE_ATTR] = (fn.__code__, fn.__defaults__, fn.__kwdefaults__, options,
                                  converted, _generation)


def instantiate(factory, fn, ag_namespace):
    """Binds a factory to `fn`'s globals, closure cells, defaults and attributes.

    Args:
      factory: a _Factory made from `fn.__code__`.
      fn: the original function.
      ag_namespace: the `ag__` object the converted function uses.

    Returns:
      The converted function.
    """
    code = factory.code
    index = factory.cell_index
    if index is None:
        closure = fn.__closure__
    else:
        cells = fn.__closure__
        closure = tuple(cells[i] for i in index) if index else None
    bound = types.FunctionType(code, fn.__globals__, None, None, closure)
    new_fn = bound(ag_namespace)
    new_fn.__defaults__ = fn.__defaults__
    new_fn.__kwdefaults__ = fn.__kwdefaults__
    new_fn.__name__ = fn.__name__
    new_fn.__qualname__ = fn.__qualname__
    new_fn.__module__ = fn.__module__
    new_fn.__doc__ = fn.__doc__
    if fn.__dict__:
        new_fn.__dict__.update(fn.__dict__)
        new_fn.__dict__.pop(INSTANCE_ATTR, None)
    if fn.__annotations__:
        new_fn.__annotations__ = fn.__annotations__
    new_fn.__ag_converted__ = True
    return new_fn
