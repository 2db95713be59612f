"""Widgets the views share: validated fields and combos, a collapsible section, the sentence on
top of a view, wheel-proof spin boxes."""
