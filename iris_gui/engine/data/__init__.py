"""The data a run trains on: the built-in data sets, the split and scaling, your own CSV.
Host-side numpy and scikit-learn; no torch."""
