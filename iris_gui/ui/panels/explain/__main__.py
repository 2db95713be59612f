"""``python -m iris_gui.ui.panels.explain``: the view alone, with sample data."""

import sys

from iris_gui.ui.panels.explain.panel import main

sys.exit(main())
