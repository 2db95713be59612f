import os

# Set before any test imports Qt: the suite runs headless, in CI and on developer machines.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
