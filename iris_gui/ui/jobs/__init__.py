"""The bridge to the worker: the controller, its QThread worker, the run state."""
