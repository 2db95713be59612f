"""A device's ceilings, measured on it: peak arithmetic, memory bandwidth, the per-op floor and,
on an accelerator, its host copies and syncs (records/ceilings.py holds what they are)."""
