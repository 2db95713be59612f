"""Hand-written device kernels (Triton), imported only by the rungs that use them: Triton is an
optional dependency (about 1 GB; CUDA builds of torch on Linux ship it)."""
