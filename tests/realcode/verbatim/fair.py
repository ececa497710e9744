"""The reasons a copied function's staged calls are not counted in the target (see
docs/realcode.md, "Fair limitations"): what a static graph cannot do as Python does."""

RECURSION = ('recursion on a staged value: each staged call stages the next one again '
             '(StagingError)')
ISINSTANCE = 'an isinstance(n, int) guard: a staged value is a tensor, not an int'
TEXT = ('builds text from a staged number (str(n), a table of strings, chr, a slice at a staged '
        'position): the text is known only when the graph runs')
BYTES = 'builds bytes from staged numbers: they are known only when the graph runs'
RAGGED = ('a list of lists of varying lengths, as many as the staged values give: a staged list '
          'holds elements of one shape')
NONE_THEN_INT = ('a loop variable that is None before the loop and an int once a staged branch '
                 'ran: its type depends on which branch runs')
NONE_OR_LIST = ('returns None or a list whose size is a staged value: its type and shape depend '
                'on which branch runs')
JAX_LENGTH = ('a list whose length is a staged value (sized by it, appended to in a staged loop '
              'or branch, or sliced at it): JAX shapes are static')
JAX_TEXT = 'builds a Python str in a staged branch: JAX has no string values'
MIXED = ('a list of strings and staged numbers side by side ("Fizz" or n): a staged list holds '
         'elements of one dtype')
JAX_FMA = ('true division whose float result decides a loop test (`while r != 0`): XLA fuses '
           '`a - q * b` into one fused multiply-add, rounded once where Python rounds twice, so '
           'the loop sees 8.9e-16 where Python sees 0.0 (openxla/xla#41579)')
NONE_OR_PAIR = ('returns None when no pair is found and a list of two indices otherwise (its '
                'annotation says `list[int] | None`): its type depends on which branch runs')
NONE_CELLS = ('a table of None placeholders filled in later (`[[None for _ in range(cols)] ...]`'
              ' with a staged size): a staged table holds numbers, and None is not one')
GENERATOR = ('advances a Python generator (`next(f)`) once per iteration of a loop over a staged '
             'range: the loop body is traced once, so the generator would advance once '
             '(StagingError)')
TUPLE_OR_LIST = ('a bool argument decides whether the function returns a tuple (the list and '
                 'its sieve) or the list alone: staged, its result structure would depend on '
                 'which branch runs')
INT_OR_FLOAT = ('an int in one branch and a float in the other (a return value, a loop '
                'variable, a list given an int and then floats): a staged value has one dtype, '
                'which would depend on which branch runs')
NONE_OR_INDEX = ('returns None where the item is not found and its index otherwise (its '
                 'annotation says `int | None`): its type depends on which branch runs')
