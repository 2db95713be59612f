"""The Run view: the controls that build a RunConfig, and the status bar's run line."""
