"""`autograph survey`: will my code convert? Dumps every module of a directory, reports totals.

Each chunk of modules runs `autograph dump --json` in a subprocess with a time limit, so one
module that hangs or crashes the converter costs only itself. The report groups the reasons
for unconverted functions by their kind (the unsupported construct, or the exception type),
which `dump` records where it catches the error.
"""

import collections
import json
import os
import subprocess
import sys
import sysconfig

from autograph.cli.dump import InputError
from autograph.cli.dump import modules_in_directory


def _run_dump_json(files, timeout):
    """Runs `dump --json` on files in a subprocess; returns {file: record} (partial on failure)."""
    cmd = [sys.executable, '-m', 'autograph', 'dump', '--json', '--timeout',
           str(min(timeout, 20.0))] + files
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout * len(files),
                              env=env, stdin=subprocess.DEVNULL, check=False)
        out = proc.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or '')
    records = {}
    for line in out.splitlines():
        if line.startswith('{'):
            record = json.loads(line)
            records[record['file']] = record
    return records


def cmd_survey(args):
    """Runs `autograph survey` (see the parser in autograph/cli/__init__.py)."""
    root = args.directory or sysconfig.get_paths()['stdlib']
    if not os.path.isdir(root):
        raise InputError('expected a directory to survey, found %s %r'
                         % ('a file' if os.path.exists(root) else 'nothing at', root))
    k, _, n = args.shard.partition('/')
    if not (k.isdigit() and n.isdigit() and int(k) < int(n)):
        raise InputError('expected --shard K/N with 0 <= K < N, found %r' % args.shard)
    if args.chunk < 1 or args.timeout <= 0:
        raise InputError('expected --chunk >= 1 and --timeout > 0, found %d and %g'
                         % (args.chunk, args.timeout))
    files = [m.filename for m in modules_in_directory(root)]
    files.sort(key=is_test)  # library modules first, then tests: partial runs say more
    records = _load_records(args.records)
    mine = files[int(k)::int(n)]
    todo = [f for f in mine if f not in records]
    for start in range(0, len(todo), args.chunk):
        chunk = todo[start:start + args.chunk]
        got = _run_dump_json(chunk, args.timeout)
        for f in chunk:  # a chunk that timed out or crashed: redo its rest one module at a time
            if f not in got:
                got.update(_run_dump_json([f], args.timeout))
        records.update(got)
        if args.records:
            _append_records(args.records, [got[f] for f in chunk if f in got])
        print('surveyed %d/%d modules' % (min(start + args.chunk, len(todo)), len(todo)),
              file=sys.stderr, flush=True)
    if int(n) > 1:  # a shard reports its own modules: the others may still be running
        records = {f: records[f] for f in mine if f in records}
        files = mine
    print(survey_report(root, files, records, args.examples,
                        '' if int(n) == 1 else ', shard %s' % args.shard), end='')
    return 0


def is_test(filename):
    """True for a file of a test directory or named test_*.py."""
    parts = filename.split(os.sep)
    return bool({'test', 'tests', 'idle_test'} & set(parts)) or parts[-1].startswith('test_')


def _append_records(path, records):
    try:
        with open(path, 'a', encoding='utf-8') as out:
            out.writelines(json.dumps(r) + '\n' for r in records)
    except OSError as e:
        raise InputError('could not append to --records %r: %s' % (path, e.strerror or e)) \
            from None


def _load_records(path):
    records = {}
    if not path or not os.path.exists(path):
        return records
    try:
        with open(path, encoding='utf-8') as f:
            for line in f:
                try:  # shards append to one file: a torn line is redone, not fatal
                    record = json.loads(line)
                    records[record['file']] = record
                except (ValueError, KeyError, TypeError):
                    continue
    except (OSError, UnicodeDecodeError) as e:
        raise InputError('expected --records to be a JSON-lines file, could not read %r: %s'
                         % (path, e)) from None
    return records


def _unreadable_label(record):
    if record.get('kind') == 'syntax':
        return 'not valid Python %d.%d%s' % (sys.version_info[0], sys.version_info[1],
                                             ' (test data)' if is_test(record['file']) else '')
    return 'could not be read'


def survey_report(root, files, records, n_examples, part=''):
    """The survey's report: a table of totals and one of reasons, as Markdown.

    Args:
      root: the surveyed directory.
      files: the modules the report covers.
      records: module file -> its record (modules of `files` without one crashed).
      n_examples: how many examples per reason.
      part: text added to the title (', shard K/N').
    """
    lost = [f for f in files if f not in records]
    unreadable = [r for r in records.values() if 'error' in r]
    read = [r for r in records.values() if 'error' not in r]
    n_functions = sum(r['functions'] for r in read)
    failures = [f for r in read for f in r['failures']]
    groups = collections.defaultdict(list)
    for failure in failures:
        groups[failure['group']].append('%s (%s)' % (
            failure['qualname'], os.path.relpath(failure['where'], root)))
    kinds = collections.Counter(_unreadable_label(r) for r in unreadable)
    lines = ['Survey of %s (Python %d.%d%s)' % (root, *sys.version_info[:2], part), '',
             '| | count |', '|---|---:|',
             '| modules (.py files) | %d |' % len(files),
             '| modules parsed | %d |' % len(read)]
    lines += ['| modules %s | %d |' % (label, count) for label, count in sorted(kinds.items())]
    lines += ['| modules that crashed or timed out | %d |' % len(lost),
              '| functions and methods | %d |' % n_functions,
              '| converted | %d |' % (n_functions - len(failures)),
              '| not converted | %d |' % len(failures), '',
              '| reason not converted | functions | example |', '|---|---:|---|']
    for reason, where in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        example = '; '.join(where[:n_examples])
        lines.append('| %s | %d | %s |' % (reason.replace('|', '\\|'), len(where), example))
    for record in unreadable:
        lines.append('%s: %s' % (_unreadable_label(record), record['error']))
    for f in lost:
        lines.append('crashed or timed out: %s' % f)
    return '\n'.join(lines) + '\n'
