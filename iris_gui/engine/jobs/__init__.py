"""Jobs driven in one place: the service that runs, stops and saves every run and sweep the
window, the command line and the Python API ask for (service.py), which runner does a job
(places.py: this process, a worker of the job's own, the warm worker, a host), and a caller's
stop turned into the runner's (stopping.py). No Qt; no torch at import."""
