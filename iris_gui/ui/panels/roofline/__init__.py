"""The Roofline view: runs and a sweep's points against their devices' ceilings, with a hover,
a Measure ceilings button, a datasheet beside them and the file export."""
