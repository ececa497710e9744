"""The cache of conversions in a process: keyed on code objects by identity, held weakly."""

import threading
import weakref


class CodeCache(object):
    """A cache keyed on code objects by identity, holding them weakly.

    Not a WeakKeyDictionary: code objects compare equal across files (equality ignores
    co_filename), so two files with an identical function would share one entry, and errors
    in the second file would name the first.
    """

    def __init__(self):
        self._entries = {}  # id(code) -> CacheEntry (a weak reference to code, with its value)
        self._lock = threading.Lock()
        entries = self._entries

        def forget(ref):
            if entries.get(ref.key) is ref:
                entries.pop(ref.key, None)

        self._forget = forget  # one callback for every entry

    def get(self, code):
        entry = self._entries.get(id(code))
        if entry is not None and entry() is code:
            return entry.value
        return None

    def __setitem__(self, code, value):
        with self._lock:
            self._entries[id(code)] = CacheEntry(code, self._forget, id(code), value)

    def __contains__(self, code):
        entry = self._entries.get(id(code))
        return entry is not None and entry() is code

    def __len__(self):
        return len(self._entries)

    def clear(self):
        with self._lock:
            self._entries.clear()


class CacheEntry(weakref.ref):
    """A _CodeCache entry: a weak reference to the code object, with its key and value."""

    __slots__ = ('key', 'value')

    def __new__(cls, code, callback, key, value):
        del key, value
        return super().__new__(cls, code, callback)

    def __init__(self, code, callback, key, value):
        super().__init__(code, callback)
        self.key = key
        self.value = value
