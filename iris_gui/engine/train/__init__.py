"""One run, in the process that trains it: the trainer's phases, the timed loop, the
recorders, the warm-up, the batches, the model, the precision, the devices and their clock."""
