"""Skills saved from code by ipybox's save_skill: ``from skills.<name> import ...``.

A skill's name may hold hyphens (``csv-report``), which no Python name can: its module is the
name with underscores (``skills.csv_report``). This finder maps one to the other; a name
without hyphens is found by Python's own path finder first.
"""

import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


class _HyphenatedSkillFinder:
    @staticmethod
    def find_spec(fullname, path=None, target=None):
        package, _, module = fullname.partition(".")
        if package != __name__ or not module or "." in module or "_" not in module:
            return None
        folder = os.path.join(_HERE, module.replace("_", "-"))
        init = os.path.join(folder, "__init__.py")
        if os.path.islink(folder) or not os.path.isfile(init):
            return None
        return importlib.util.spec_from_file_location(
            fullname, init, submodule_search_locations=[folder]
        )


if not any(type(f).__name__ == _HyphenatedSkillFinder.__name__ for f in sys.meta_path):
    sys.meta_path.append(_HyphenatedSkillFinder())
