"""Extra layer kinds from outside the package (``--plugin MODULE_OR_FILE``).

A plugin module registers its kinds on import, exactly as the built-in ones do:
``spec2onnx.registry.register_layer(LayerKind(...))`` with the schema, the lowering
and the numpy reference (``reference=fn``; or later ``spec2onnx.reference.register_reference(name, fn)``).
Worker processes import the same plugins (docs/architecture.md, "Adding a layer kind").
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from ..errors import UserError

_LOADED: set[str] = set()


def load_plugins(plugins) -> None:
    for plugin in plugins:
        if plugin in _LOADED:
            continue
        try:
            if plugin.endswith(".py"):
                path = Path(plugin).resolve()
                name = f"spec2onnx_plugin_{path.stem}"
                spec = importlib.util.spec_from_file_location(name, path)
                if spec is None or not path.is_file():
                    raise UserError(f"--plugin {plugin}: no such file")
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
            else:
                importlib.import_module(plugin)
        except UserError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise UserError(f"--plugin {plugin}: cannot import: {type(exc).__name__}: {exc}") from None
        _LOADED.add(plugin)
