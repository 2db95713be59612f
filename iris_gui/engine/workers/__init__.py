"""Running jobs away from the caller: the warm worker process and its side of the pipe, the
in-process runner, the log file. No torch at import: the window imports these."""
