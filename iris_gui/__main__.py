import multiprocessing
import sys

from iris_gui.cli import main

if __name__ == "__main__":
    # In a frozen build the worker process is this same executable, started with
    # multiprocessing's own arguments; freeze_support() turns that start into the worker.
    multiprocessing.freeze_support()
    sys.exit(main())
