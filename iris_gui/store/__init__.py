"""The runs store: a SQLite database of finished runs (``runs``) and their CSV export (``export``).

No Qt here; the store depends on the engine only for its record types. Submodules are imported
directly (``from iris_gui.store.runs import RunStore``), as in the engine.
"""
