"""The module paths of emqsim 0.1, kept for one release after the package took its layers.

`import emqsim.sim` (or `from emqsim.cadence import Every`) still works and gives the module
at its new place, `emqsim.engine.sim`, the same object, with a DeprecationWarning naming the
new path. A table and an import hook, not a file at each old path, so each moved file keeps
its history (`git log --follow`). Removed in 0.3.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings

_ENGINE = ("errors timefmt durations clock rand ids keys cadence cron_parser schedule faults scripts store "
           "registry pump worker trace sim chain reference").split()
#: old module path -> new module path
MOVED = {f"emqsim.{m}": f"emqsim.engine.{m}" for m in _ENGINE} | {
    "emqsim.dst": "emqsim.cron.rules",
    "emqsim.site_player": "emqsim.site.player",
    "emqsim.course": "emqsim.lessons.course",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and loads it as the module at the new one."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; import it from there (the old path goes in emqsim 0.3)",
                      DeprecationWarning, stacklevel=2)  # warnings skips the import machinery's frames
        return importlib.import_module(new)

    def exec_module(self, module):
        """The module at the new path has run already."""


def install() -> None:
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())
