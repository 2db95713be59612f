"""``python -m iris_gui.ui.panels.loss_plot``: the plot alone, a made-up run streaming in."""

import sys

from iris_gui.ui.panels.loss_plot.demo import main

sys.exit(main())
