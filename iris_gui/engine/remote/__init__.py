"""Devices on other machines, reached through the user's own ``ssh``.

The remote end is ``iris-gui worker --stdio`` (stdio_worker.py): the job protocol of the local
worker process (worker_process.py), framed as length-prefixed JSON (framing.py) on the ssh
channel's stdin and stdout. ``RemoteRunner`` (runner.py) is the local end, with the interface of
``ProcessRunner`` (``workers.jobs.Runner``); ``host_runners.HostRunners`` picks the runner a
device string names. Hosts are kept in
hosts.py; the ssh command line is built in ssh.py, never through a shell on this side.
"""
