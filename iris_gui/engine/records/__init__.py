"""What runs, explains, ladders and sweeps produce, as plain records and pure functions of
them: the store keeps them, every view reads them. No torch."""
