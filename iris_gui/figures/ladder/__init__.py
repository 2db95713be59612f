"""The engine ladder's bars: geometry, words and the file export."""
