"""Training one run across several processes (data parallel)."""
