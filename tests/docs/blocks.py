"""The fenced code blocks of README.md and docs/*.md, and how each kind is checked.

Kinds, by the fence's language and the HTML comment on the line before it:
  python      run: a page's python blocks run in order in one process, sharing a namespace
              (as a reader types them); a ```text block right after one is its exact stdout.
  python after `<!-- excerpt: PATH -->`: a piece of PATH, which another test runs.
  python after `<!-- signatures -->`: each `name(params)` line names a real callable with
              those parameters.
  console     `$ python ...` then its exact stdout, run in this checkout.
  sh (or no language): commands to type; each program is known, each file or module it names
              exists and each --option is in that command's --help.
  toml        a table of this project's pyproject.toml, with a placeholder value.
  text        output, diagrams and listings: not code.
"""
import dataclasses
import glob
import os
import re

from tests.checkout import ROOT

_FENCE = re.compile(r'^```([\w-]*)\n(.*?)^```$', re.M | re.S)
_MARK = re.compile(r'<!-- (excerpt: \S+|signatures) -->\n$')
KINDS = ('python', 'console', 'sh', 'toml', 'text')


@dataclasses.dataclass
class Block:
    page: str    # the path relative to the checkout
    line: int    # the line of the opening fence
    lang: str    # one of KINDS ('' is 'sh')
    text: str
    mark: str    # 'excerpt: PATH', 'signatures' or ''
    output: str  # for a python block, the ```text block right after it ('' if none)

    @property
    def id(self):
        return '%s:%d' % (self.page, self.line)


def pages():
    """README.md and every page of the docs site."""
    return ['README.md'] + sorted(os.path.relpath(p, ROOT)
                                  for p in glob.glob(os.path.join(ROOT, 'docs', '*.md')))


def blocks_of(page):
    with open(os.path.join(ROOT, page), encoding='utf-8') as f:
        text = f.read()
    found = []
    for m in _FENCE.finditer(text):
        mark = _MARK.search(text, 0, m.start())
        mark = mark.group(1) if mark and mark.end() == m.start() else ''
        line = text.count('\n', 0, m.start()) + 1
        found.append([m, Block(page, line, m.group(1) or 'sh', m.group(2), mark, '')])
    blocks = []
    for i, (m, block) in enumerate(found):
        if block.lang == 'text' and i and found[i - 1][1].lang == 'python' \
                and not found[i - 1][1].mark and not text[found[i - 1][0].end():m.start()].strip():
            found[i - 1][1].output = block.text
            continue
        blocks.append(block)
    return blocks


def all_blocks():
    return [b for page in pages() for b in blocks_of(page)]
