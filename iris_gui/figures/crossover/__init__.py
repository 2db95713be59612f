"""Sweeps: the crossover figure, its marks and words, the families figure, their file exports."""
