"""The loss plot: live chunks over a growing buffer, stored curves, the hover read-out."""
