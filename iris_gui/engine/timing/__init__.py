"""Reading measurements: the steady-state estimator, median and IQR, the time left, the wait
for a core, the memory available. No torch."""
