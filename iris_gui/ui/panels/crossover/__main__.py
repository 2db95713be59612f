"""``python -m iris_gui.ui.panels.crossover``: the view alone, with sample data."""

import sys

from iris_gui.ui.panels.crossover.panel import main

sys.exit(main())
