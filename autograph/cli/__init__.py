"""Command-line interface: `autograph dump`, `autograph graph` and `autograph survey`.

One module per subcommand (dump.py, graph.py, survey.py); this one parses the arguments and
turns every user mistake into a one-line error and exit status 1 or 2, never a traceback.
"""

import argparse
import os
import sys

import autograph
from autograph.cli.dump import InputError
from autograph.cli.dump import cmd_dump
from autograph.cli.graph import cmd_graph
from autograph.cli.survey import cmd_survey

__all__ = ['main', 'InputError']

_DESCRIPTION = """\
Standalone AutoGraph from the command line.

  autograph dump FILE.py|DIR|MODULE [--function NAME ...] [--output DIR]
      print the converted source of every function and method; nothing is executed
      (files are parsed, not imported); a package's submodules are included
  autograph graph FILE.py:FUNCTION --signature "float32[None,3], int32[]" [--dot]
      trace FUNCTION (or Class.method) with runtime.function and print the graph
      (imports FILE.py)
  autograph survey [DIR] [--timeout SECONDS]
      dump every module under DIR (default: the standard library) in subprocesses and
      print totals, with the reasons for unconverted functions grouped
"""


def main(argv=None):
    """Runs the command line.

    Args:
      argv: the arguments without the program name; None reads sys.argv.

    Returns:
      The exit status: 0 on success, 1 when the input cannot be read or imported, 2 on a
      usage error.
    """
    args = _make_parser().parse_args(argv)
    try:
        return args.handler(args)
    except InputError as e:
        print('autograph %s: error: %s' % (args.command, e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print('autograph %s: interrupted' % args.command, file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `autograph dump big.py | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


class _SplitCommas(argparse.Action):
    """Collects `--function a --function b,c` as ['a', 'b', 'c'] (one value per flag)."""

    def __call__(self, parser, namespace, values, option_string=None):
        names = [n.strip() for n in values.split(',')]
        if not all(names):
            parser.error('expected function names after %s, found %r' % (option_string, values))
        setattr(namespace, self.dest, (getattr(namespace, self.dest) or []) + names)


def _positive(text):
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError('expected a number of seconds > 0, found %r' % text)
    return value


def _make_parser():
    parser = argparse.ArgumentParser(
        prog='autograph', description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--version', action='version',
                        version='autograph %s (Python %d.%d)' % (
                            autograph.__version__, *sys.version_info[:2]))
    sub = parser.add_subparsers(dest='command', metavar='COMMAND', required=True)
    _add_dump(sub)
    _add_graph(sub)
    _add_survey(sub)
    return parser


def _add_dump(sub):
    dump = sub.add_parser(
        'dump', help='print the converted source of the functions of a file or module',
        description='Prints the code AutoGraph generates for every function and method of a'
        ' Python file, of every .py file under a directory, or of an importable module or'
        ' package with its submodules (located with importlib, never executed). Each function'
        ' comes under a header naming its file:line; functions that cannot be converted are'
        ' listed with their reasons at the end. Exit status: 0, or 1 when an input cannot be'
        ' read.')
    dump.add_argument('targets', nargs='+', metavar='PATH_OR_MODULE',
                      help='a .py file, a directory, or a dotted module name such as json.decoder')
    dump.add_argument('--function', '-f', action=_SplitCommas, default=[], metavar='NAME',
                      help='only this function (name or Class.method); repeat the flag or'
                      ' separate names with commas for several')
    dump.add_argument('--output', '-o', metavar='DIR',
                      help='write one .py file per input module under DIR instead of printing')
    dump.add_argument('--timeout', type=_positive, default=20.0, metavar='SECONDS',
                      help='give up converting one function after this long (default 20)')
    dump.add_argument('--json', action='store_true',
                      help='print one JSON summary line per module instead of source')
    dump.set_defaults(handler=cmd_dump)


def _add_graph(sub):
    graph = sub.add_parser(
        'graph', help='trace FILE:FUNCTION with runtime.function and print its graph',
        description='Imports FILE (running its module-level code), traces FUNCTION with'
        ' runtime.function(input_signature=...) and prints the graph. For FILE:Class.method'
        ' the method is bound to a fresh Class() (the class must build without arguments).')
    graph.add_argument('target', metavar='FILE:FUNCTION',
                       help='a Python file and a function in it, e.g. model.py:step or'
                       ' model.py:Net.call')
    graph.add_argument('--signature', '-s', required=True, metavar='SPECS',
                       help='comma-separated tensor specs, DTYPE[DIM,...]: "float32[None,3],'
                       ' int32[]"; None or ? is an unknown dimension, [] a scalar')
    graph.add_argument('--dot', action='store_true', help='print Graphviz instead of text')
    graph.set_defaults(handler=cmd_graph)


def _add_survey(sub):
    survey = sub.add_parser(
        'survey', help='dump every module of a directory, report totals',
        description='Runs `autograph dump --json` over every .py file under DIR (default: the'
        ' standard library of this Python), in subprocesses with a per-module timeout, and'
        ' prints the totals with the reasons for unconverted functions grouped.')
    survey.add_argument('directory', nargs='?', default=None, metavar='DIR')
    survey.add_argument('--timeout', type=_positive, default=120.0, metavar='SECONDS',
                        help='per-module time limit (default 120)')
    survey.add_argument('--chunk', type=int, default=40, metavar='N',
                        help='modules per subprocess (default 40)')
    survey.add_argument('--examples', type=int, default=1, metavar='N',
                        help='example functions shown per reason group (default 1)')
    survey.add_argument('--records', metavar='FILE',
                        help='append each module\'s result to this JSON-lines file and skip'
                        ' modules already in it (resume; share it between shards)')
    survey.add_argument('--shard', default='0/1', metavar='K/N',
                        help='survey only modules K, K+N, K+2N, ... (run N shards in parallel'
                        ' with one --records file, then once more to print the report)')
    survey.set_defaults(handler=cmd_survey)
