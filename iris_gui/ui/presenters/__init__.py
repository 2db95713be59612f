"""Presenters: each wires panels to the controller and the store."""
