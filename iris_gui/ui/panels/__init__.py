"""The window's views, one folder each (run, results, loss_plot, explain, ladder, crossover),
with the widgets they share (shared/) and the made-up data their previews show (samples/).
Each view runs alone with sample data: ``python -m iris_gui.ui.panels.<view>``. A view's
folder imports no other view's (tests/test_import_rules.py)."""
