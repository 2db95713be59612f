"""Running a sweep: each point measured through the same rungs and loop as a run."""
