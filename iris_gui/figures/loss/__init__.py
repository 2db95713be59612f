"""The loss curves: the live plot's figure, its file export, its ranges and reductions."""
