import sys

from iris_gui.cli import main

sys.exit(main())
