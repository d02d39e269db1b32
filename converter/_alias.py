"""One copy of the library per process, whichever name imported it first.

The wheel installs this folder as the package ``spec2onnx``; a source checkout has it as
``converter`` (the tests and ``cli.py`` import it so). Two copies in one process would mean two
layer registries, two ``UserError`` classes and plugins registered into the wrong one. So when
the checkout's ``converter`` is imported first, ``spec2onnx`` and every ``spec2onnx.X`` become
the very same module objects as ``converter`` and ``converter.X`` (``alias_package`` below): an
installed ``spec2onnx`` is then never imported in that process.

The reverse (``converter`` as a name of an installed ``spec2onnx``) is never done by the
package itself, which must not claim a generic top-level name; tests/conftest.py does it for the
test session when a pytest plugin entry point imported the installed ``spec2onnx`` first.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``alias`` and ``alias.X`` to the already importable ``real`` and ``real.X``."""

    def __init__(self, alias: str, real: str):
        self.alias, self.real = alias, real

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.alias and not fullname.startswith(self.alias + "."):
            return None
        real_name = self.real + fullname[len(self.alias):]
        if real_name not in sys.modules and importlib.util.find_spec(real_name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return importlib.import_module(self.real + spec.name[len(self.alias):])  # the real module object itself

    def exec_module(self, module):
        pass  # already executed under its real name


def alias_package(alias: str, real: str) -> bool:
    """Make ``alias`` (and its submodules) another name of the imported package ``real``.

    Returns False, changing nothing, when a module called ``alias`` is already imported (a second
    copy exists and cannot be merged) or the alias is already in place.
    """
    if alias in sys.modules:
        return sys.modules[alias] is sys.modules.get(real)
    if any(isinstance(f, _AliasFinder) and f.alias == alias for f in sys.meta_path):
        return True
    sys.meta_path.insert(0, _AliasFinder(alias, real))  # before the path finders: an installed copy never loads
    sys.modules[alias] = sys.modules[real]
    return True
