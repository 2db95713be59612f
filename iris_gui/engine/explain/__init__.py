"""Explain: where an epoch's time goes, profiled and paired, reduced to a Breakdown."""
