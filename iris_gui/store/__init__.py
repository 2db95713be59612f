"""The runs store: a SQLite database of finished runs (``runs``) and their CSV export (``export``).

No Qt here; the store depends on the engine only for its record types. Submodules are imported
directly (``from iris_gui.store.runs import RunStore``), as in the engine. Opening is safe with
any number of processes (``schema``, ``aside``: one opener at a time judges and sets aside a
file, never over another); reading commands open it without changing it (``reading``); every
row read is checked (``validate``, ``run_rows``); a run the store cannot take goes to a
recovery file (``recovery``) that the next writer adds back (``recovery_import``).
"""
