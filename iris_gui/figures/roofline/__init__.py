"""The roofline figure and its file."""
