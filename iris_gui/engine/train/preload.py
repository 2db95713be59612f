"""What the worker processes' forkserver imports once, so that each worker forked from it
starts warm: torch, the trainer and its data sets (scikit-learn), and ``torch._dynamo``, which
``torch.optim`` imports on a process's first optimizer. Measured on a 2-core machine: a spawned
worker took 3.3 s to start and its first run 1.3 s more; one forked from the server, 0.25 s
and 0.1 s.

Imports only. No torch operation runs and no device is touched here: a process that forks
must not have initialised CUDA (its driver state does not survive a fork), and no torch
operation has started the intra-op thread pool. tests/engine/workers/test_worker_start.py
imports this module with every CUDA entry point made to fail and checks that it started no
Python thread. (numpy's and scipy's OpenBLAS start their pools at load; OpenBLAS stops them
around a fork.)
"""

from __future__ import annotations

import torch._dynamo  # noqa: F401

import iris_gui.engine.train.trainer  # noqa: F401
