"""The Explain view: breakdowns as stacked bars and the current run's figures in words."""
