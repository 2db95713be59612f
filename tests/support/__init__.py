"""The tests' own helpers, one package: the CLI in subprocesses (cli), the loopback sshd
(sshd), the kill -9 trials' child (kill), the isolation of the user's files (isolation),
dialog forms and figure pixels, and the kernel tests' runs as data (kernel_runs). The
tests' root conftest.py puts tests/ on the path, so ``from support.cli import ...``
works from every folder."""
