"""The models a run trains: the note's MLP and the families past it (spec/models.py)."""
