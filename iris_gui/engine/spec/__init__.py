"""What to run and its rules: RunConfig, the batch and precision settings, the engines' names
and rules, the errors a user can correct. No torch."""
