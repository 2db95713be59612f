import sys

from iris_gui.cli import main

if __name__ == "__main__":
    sys.exit(main())
