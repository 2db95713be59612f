import multiprocessing
import os
import sys

from iris_gui.cli import main

if __name__ == "__main__":
    # The bundle's windowed program (iris-gui-window on Windows, the .app's on macOS) has no
    # console: its standard streams are None, and a print or a warning would raise. They
    # write nowhere instead; the logs still go to their files.
    if sys.stdout is None or sys.stderr is None:
        nowhere = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the whole process
        sys.stdout = sys.stdout or nowhere
        sys.stderr = sys.stderr or nowhere
    # In a frozen build the worker process is this same executable, started with
    # multiprocessing's own arguments; freeze_support() turns that start into the worker.
    multiprocessing.freeze_support()
    sys.exit(main())
