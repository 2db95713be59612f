"""The Ladder view: the engine ladder's figure with tooltips, its sentence and its file export."""
