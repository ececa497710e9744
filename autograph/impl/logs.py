"""AutoGraph's logging: the `autograph` logger, gated by TensorFlow's verbosity levels.

The levels are TensorFlow AutoGraph's (`tf.autograph.set_verbosity`, AUTOGRAPH_VERBOSITY):

  0   nothing (the default);
  1   each conversion of a function (the one the user converted included) and each converted
      call with its arguments;
  2   also the generated code of each conversion;
  3   also the conversion cache hits;
  10  (or any higher value) everything, as TensorFlow recommends for bug reports.

Records go to the standard `logging` logger `autograph` at INFO level. The verbosity level
decides what is logged; the logger's own level filters further only when the user set it.
With no handler configured anywhere, records are written to stderr (Python's last-resort
handler would drop INFO records), so `set_verbosity(1)` alone shows something.
"""

import os
import sys

# `logging` costs ~3 ms to import: it is imported when a record is first made.
_LOGGER = []


def get_logger():
    """Returns the standard `logging` logger 'autograph' (importing logging on first use)."""
    if not _LOGGER:
        import logging  # pylint: disable=import-outside-toplevel

        _LOGGER.append(logging.getLogger('autograph'))
    return _LOGGER[0]


def __getattr__(name):  # `logs.logger`, made on first access
    if name == 'logger':
        return get_logger()
    raise AttributeError('module %r has no attribute %r' % (__name__, name))

ENV_VERBOSITY = 'AUTOGRAPH_VERBOSITY'

# The level that each kind of message needs (TensorFlow's choices).
CONVERSION = 1
CALLS = 1
GENERATED_CODE = 2
CACHE_HITS = 3


def _env_level():
    try:
        return int(os.environ.get(ENV_VERBOSITY, '0'))
    except ValueError:
        return 0


# [current level, whether set_verbosity set it, echo to stdout]; hot paths read state[0]
# directly (converted_call checks it on every call, so it must not read the environment).
state = [_env_level(), False, False]


def set_verbosity(level, alsologtostdout=False):
    """Sets the AutoGraph verbosity level (TensorFlow's `tf.autograph.set_verbosity`).

    Takes precedence over the AUTOGRAPH_VERBOSITY environment variable, which is read when
    autograph is imported and whenever `set_verbosity` has not been called since.

    Args:
      level: an int; 0 logs nothing, 1 each conversion and converted call, 2 adds the
        generated code, 3 the conversion cache hits; use 10 when reporting a bug.
      alsologtostdout: whether to also print each message to stdout (TensorFlow's
        `INFO: ...` echo), whatever the logging configuration.
    """
    state[0] = int(level)
    state[1] = True
    state[2] = bool(alsologtostdout)


def reset_verbosity():
    """Forgets set_verbosity: the level comes from AUTOGRAPH_VERBOSITY again (for tests)."""
    state[0] = _env_level()
    state[1] = False
    state[2] = False


def get_verbosity():
    """Returns the current verbosity level.

    Returns:
      int: the level given to set_verbosity, else AUTOGRAPH_VERBOSITY, else 0.
    """
    return state[0]


def has_verbosity(level):
    """Whether messages of `level` are logged at the current verbosity."""
    return state[0] >= level


_INFO = 20  # logging.INFO
_WARNING = 30  # logging.WARNING


def _emit(severity, prefix, msg, args):
    logger = get_logger()
    if logger.level == 0 or logger.isEnabledFor(severity):  # 0: logging.NOTSET
        if logger.hasHandlers():
            frame, lineno, func = _caller()
            record = logger.makeRecord(logger.name, severity, frame, lineno, msg, args, None,
                                       func)
            logger.handle(record)
        elif not state[2]:
            sys.stderr.write('%s: %s\n' % (prefix, msg % args if args else msg))
    if state[2]:
        print('%s: %s' % (prefix, msg % args if args else msg))


def _caller(depth=3):
    frame = sys._getframe(depth)  # _caller <- _emit <- log <- its caller (depth 3)
    return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name


def log(level, msg, *args):
    """Logs `msg % args` at INFO on the `autograph` logger when verbosity >= `level`."""
    if state[0] >= level:
        _emit(_INFO, 'INFO', msg, args)


def notice(msg, *args):
    """Logs `msg % args` at WARNING on the `autograph` logger, whatever the verbosity.

    For messages that are not also issued as a Python warning: with no handler configured,
    the message goes to stderr.
    """
    _emit(_WARNING, 'WARNING', msg, args)


def warning(msg, *args):
    """Records `msg % args` at WARNING on the `autograph` logger, whatever the verbosity.

    For messages that are also issued as a Python warning (which already shows on stderr):
    the record is made only when logging has a handler, so an unconfigured program prints
    the message once, and a configured one also finds it in its logs.
    """
    logger = get_logger()
    if logger.hasHandlers() and logger.isEnabledFor(_WARNING):
        frame, lineno, func = _caller(2)
        logger.handle(logger.makeRecord(logger.name, _WARNING, frame, lineno, msg,
                                        args, None, func))
    if state[2]:
        print('WARNING: %s' % (msg % args if args else msg))
