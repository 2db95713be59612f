"""Numbers, counts and settings in words, one style wherever they are shown. No torch."""
