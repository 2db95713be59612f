"""``python -m iris_gui.ui.panels.results``: the view alone, with sample data."""

import sys

from iris_gui.ui.panels.results.panel import main

sys.exit(main())
