"""The Results view: the runs table (its model, cells and columns) and a run's Details."""
