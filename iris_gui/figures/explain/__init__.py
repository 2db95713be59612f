"""Explain's breakdown figure, its marks and its file export."""
