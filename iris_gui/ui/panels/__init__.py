"""One module per panel; each runs alone with sample data: ``python -m iris_gui.ui.panels.<name>``."""
