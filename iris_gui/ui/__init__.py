"""The desktop app: Qt only. Panels observe the engine through the worker's signals."""
