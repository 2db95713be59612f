"""The Crossover view: the sweep form, the plot with its axis choices, the points table."""
