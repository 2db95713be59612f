"""The pytest options of pyproject.toml that belong to a plugin, and the run order of files.

A GPU server's system Python has pytest without pytest-qt (and may lack pytest-timeout). pytest
warns about an ini option no plugin declares, and the suite's ``filterwarnings = error`` turns
that warning into an INTERNALERROR before any test: the GPU check's pytest steps would run
nothing. Where the plugin is absent, its options are declared here, inert, so the same
pyproject.toml serves both worlds; where it is present, the plugin's own declarations stand.
"""

from __future__ import annotations

from collections import Counter

# The plugin's module, and the options of pyproject.toml's [tool.pytest.ini_options] it reads.
PLUGIN_OPTIONS = {
    "pytestqt": (("qt_log_level_fail", "string"), ("qt_log_ignore", "linelist")),
    "pytest_timeout": (("timeout", "string"),),
}


def loaded(pluginmanager, module: str) -> bool:
    """Whether a registered plugin comes from ``module`` (``-p no:NAME`` counts as absent)."""
    return any((getattr(plugin, "__name__", "") or "").split(".")[0] == module
               for plugin in pluginmanager.get_plugins())


def declare_missing(parser, pluginmanager) -> list[str]:
    """Declare, inert, the options of every plugin not loaded; the names declared."""
    declared = []
    for module, options in PLUGIN_OPTIONS.items():
        if loaded(pluginmanager, module):
            continue
        for name, kind in options:
            parser.addini(name, f"not used here: {module} is not installed", type=kind)
            declared.append(name)
    return declared


def longest_first(items: list, distributed: bool, folders: tuple[str, ...]) -> None:
    """Under xdist's file-by-file distribution, the longest files first: those of ``folders``,
    then those with the most slow test functions (parameters not counted), each in collection
    order. A long file handed out last would keep one worker busy while the others wait. In
    one process (the GPU check's named files, cheapest first) the order given is kept."""
    if not distributed:
        return
    slow = Counter(path for path, _ in {(item.path, getattr(item, "originalname", item.name))
                                        for item in items if item.get_closest_marker("slow")})

    def rank(item) -> tuple[int, int]:
        parts = item.nodeid.split("/")  # tests/remote/..., not tests/engine/remote/...
        folder = parts[1] if len(parts) > 2 else ""
        first = folders.index(folder) if folder in folders else len(folders)
        return first, -slow[item.path]

    items.sort(key=rank)  # stable: a file's tests stay together
