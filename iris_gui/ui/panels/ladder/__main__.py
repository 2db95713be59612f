"""``python -m iris_gui.ui.panels.ladder``: the view alone, with sample data."""

import sys

from iris_gui.ui.panels.ladder.panel import main

sys.exit(main())
