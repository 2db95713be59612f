"""SVG output: the scene's export, flattened, hatched and measured."""
