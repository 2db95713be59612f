"""The window's chrome: menus, dialogs, settings, theme, placement."""
