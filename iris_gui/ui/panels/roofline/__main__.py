"""``python -m iris_gui.ui.panels.roofline``: the view alone, with sample data."""

import sys

from iris_gui.ui.panels.roofline.panel import main

sys.exit(main())
