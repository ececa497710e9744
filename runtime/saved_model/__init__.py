"""runtime.saved_model: traced functions and modules saved without their Python source.

`save(obj, path)` writes a directory that `load(path)` reads back, in any process, with the
Python code that made it gone: the format (docs/saved_model.md) is JSON for the graphs and
numpy's `.npy` arrays for the values, and loading runs nothing the files say.
"""
from runtime.saved_model.encoding import SavedModelError
from runtime.saved_model.loading import load
from runtime.saved_model.restored import LoadedConcreteFunction
from runtime.saved_model.restored import LoadedFunction
from runtime.saved_model.restored import LoadedModule
from runtime.saved_model.saving import VERSION
from runtime.saved_model.saving import save

__all__ = ["LoadedConcreteFunction", "LoadedFunction", "LoadedModule", "SavedModelError",
           "VERSION", "load", "save"]
