"""``python -m iris_gui.ui.panels.run``: the view alone, with sample data."""

import sys

from iris_gui.ui.panels.run.panel import main

sys.exit(main())
