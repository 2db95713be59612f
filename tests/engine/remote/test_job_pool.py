"""A host's sweep on several jobs at once (job_pool.py), with stand-in runners whose jobs are
numbered and whose sweeps answer at once: which job takes which size, what a job that ends
under a size gives back, and what the merged sweep keeps. The real srun is tests/remote's."""

from __future__ import annotations

import itertools
import threading

import pytest

from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.remote.host_runners import HostRunners
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.job_pool import JobPool, sizes_of
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.workers.runner import WorkerError

HPC = Host("hpc", "login.example.org", prefix="srun --gres=gpu:1 --time=30")
SPEC = SweepSpec(rows=(120, 1_000, 10_000), hidden=(10, 64), devices=("hpc:cpu",),
                 engines=("eager", "lean"), threads=("1",))


class StandInJobs:
    """Runners whose connections are jobs 1, 2, 3, ... on one node; ``ends`` lists the sizes
    (rows, hidden) under which the job measuring them ends (each once, unless ``always``)."""

    def __init__(self, ends: tuple[tuple[int, int], ...] = (), always: bool = False,
                 refuse_start: bool = False, refuse_spec: bool = False,
                 together: int = 1, starts: int | None = None) -> None:
        self.numbers = itertools.count(1)
        # The first ``together`` jobs start before any measures (stand-ins answer at once, and
        # one slot could take every size before the other's job starts).
        self.together = threading.Barrier(together, timeout=10)
        self.ends, self.always = list(ends), always
        self.refuse_start, self.refuse_spec = refuse_start, refuse_spec
        self.starts = starts  # how many jobs can start; later ones find no controller
        self.measured: list[tuple[str, int, int]] = []  # (job, rows, hidden) per size asked
        self.closed: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, host: Host) -> StandInRunner:
        return StandInRunner(host, self)


class StandInRunner:
    def __init__(self, host: Host, jobs: StandInJobs) -> None:
        self.host, self.jobs = host, jobs
        self.placement: dict[str, str] = {}
        self.on_status = None
        self.stopped = False

    def start(self) -> list:
        if self.jobs.refuse_start:
            raise WorkerError("hpc: still waiting in Slurm's queue (job 9) after 120 s; job 9 "
                              "was cancelled")
        if not self.placement:
            number = next(self.jobs.numbers)
            if self.jobs.starts is not None and number > self.jobs.starts:
                raise WorkerError("hpc: the connection to login.example.org ended (exit code "
                                  "1): srun: error: Unable to contact slurm controller")
            self.placement = {"SLURM_JOB_ID": str(number), "SLURMD_NODENAME": "node7",
                              "CUDA_VISIBLE_DEVICES": "0"}
            if number <= self.jobs.together.parties:
                self.jobs.together.wait()
        return []

    def sweep(self, spec: SweepSpec, observer: object = None) -> SweepResult:
        if self.jobs.refuse_spec:
            raise ConfigError("engine 'warp' is not allowed; choose from eager, lean")
        (rows,), (hidden,) = spec.rows, spec.hidden
        job = self.placement["SLURM_JOB_ID"]
        with self.jobs.lock:
            self.jobs.measured.append((job, rows, hidden))
            ends = (rows, hidden) in self.jobs.ends
            if ends and not self.jobs.always:
                self.jobs.ends.remove((rows, hidden))
        points = [SweepPoint("hpc:cpu", engine, 1, rows, hidden, "completed", epoch_us=10.0 + rows,
                             epochs=50, flops_per_epoch=float(rows * hidden))
                  for engine in spec.engines]
        if ends:  # Slurm's SIGTERM after the first series: the worker stops and answers
            points = points[:1]
        for done, point in enumerate(points, 1):
            if observer is not None:
                observer(point, done, len(spec.engines))
        if ends:
            return SweepResult(spec, "stopped", "stopped after 1 of 2 points", points)
        return SweepResult(spec, "completed", points=points, env={"torch": "2"})

    def request_stop(self) -> None:
        self.stopped = True

    def close(self) -> None:
        self.jobs.closed.append(self.placement.get("SLURM_JOB_ID", "-"))


def sizes(result: SweepResult) -> list[tuple[int, int]]:
    return list(dict.fromkeys((p.rows, p.hidden) for p in result.points))


def test_every_size_is_measured_once_on_the_jobs_and_kept_in_the_sweeps_order() -> None:
    jobs = StandInJobs(together=2)
    result = JobPool(HPC, 2, runner=jobs).sweep(SPEC)
    assert result.status == "completed", result.message
    assert sizes(result) == [(r, h) for r, h, _ in sizes_of(SPEC)]
    assert [p.engine for p in result.points] == ["eager", "lean"] * 6
    assert sorted((r, h) for _, r, h in jobs.measured) == sorted(sizes(result))
    assert {job for job, _, _ in jobs.measured} <= {"1", "2"}
    assert result.env["jobs"] == [f"Slurm job {n} on node7, CUDA_VISIBLE_DEVICES=0"
                                  for n in (1, 2)]
    assert result.env["host"] == "hpc"
    # Both jobs were on one node: the sweep says their points measured each other.
    assert any(n.startswith("jobs 1, 2 ran on one node (node7)") for n in result.notes)
    assert sorted(jobs.closed) == ["1", "2"]
    assert len(result.fits) == 2  # analysed: one fit per series


def test_a_job_that_ends_under_a_size_gives_it_back_and_it_is_measured_again() -> None:
    jobs = StandInJobs(ends=((1_000, 10),))
    result = JobPool(HPC, 2, runner=jobs).sweep(SPEC)
    assert result.status == "completed", result.message
    assert sizes(result) == [(r, h) for r, h, _ in sizes_of(SPEC)]
    assert len(result.points) == 12  # the stopped size's one point is not kept beside the new
    asked = [(r, h) for _, r, h in jobs.measured]
    assert asked.count((1_000, 10)) == 2 and len(asked) == 7
    ended = [n for n in result.notes if "measured again" in n]
    assert len(ended) == 1 and "while measuring 1,000 rows x 10 hidden" in ended[0], result.notes
    # The ended job measures nothing more: its slot goes on with a new job, if any is left.
    ended_job = next(job for job, r, h in jobs.measured if (r, h) == (1_000, 10))
    later = jobs.measured[jobs.measured.index((ended_job, 1_000, 10)) + 1:]
    assert ended_job not in {job for job, _, _ in later} and ended_job in jobs.closed


def test_a_size_no_job_could_take_again_is_said_so_not_measured_again() -> None:
    # One job, which ends under the second size; no other can start (the controller is gone).
    jobs = StandInJobs(ends=((1_000, 10),), starts=1)
    result = JobPool(HPC, 1, runner=jobs).sweep(SPEC)
    assert result.status == "failed"
    assert result.message.startswith("5 of 6 sizes not measured, 1,000 rows x 10 hidden first: "
                                     "hpc: the connection to login.example.org ended")
    [ended] = [n for n in result.notes if "while measuring 1,000 rows x 10 hidden" in n]
    assert ended.startswith("job 1 ended while measuring 1,000 rows x 10 hidden (stopped after")
    assert ended.endswith("that size was not measured again (hpc: the connection to "
                          "login.example.org ended (exit code 1): srun: error: Unable to "
                          "contact slurm controller)")
    assert not any("measured again on another job" in n for n in result.notes)


def test_a_size_whose_jobs_end_twice_is_kept_failed_with_its_points() -> None:
    jobs = StandInJobs(ends=((120, 64),), always=True)
    result = JobPool(HPC, 2, runner=jobs).sweep(SPEC)
    assert result.status == "failed"
    assert result.message.startswith("120 rows x 64 hidden: job ")
    assert "ended under it twice" in result.message
    assert [(r, h) for _, r, h in jobs.measured].count((120, 64)) == 2
    assert len(sizes(result)) == 6  # every other size measured, the failed one with its point


def test_no_job_at_all_is_a_failed_sweep_naming_why() -> None:
    result = JobPool(HPC, 2, runner=StandInJobs(refuse_start=True)).sweep(SPEC)
    assert result.status == "failed" and not result.points
    assert result.message == ("6 of 6 sizes not measured, 120 rows x 10 hidden first: hpc: "
                              "still waiting in Slurm's queue (job 9) after 120 s; job 9 was "
                              "cancelled")


def test_a_refusal_of_the_spec_is_raised_as_the_hosts_own_line() -> None:
    with pytest.raises(ConfigError, match="engine 'warp' is not allowed"):
        JobPool(HPC, 2, runner=StandInJobs(refuse_spec=True)).sweep(SPEC)


def test_a_stop_reaches_every_job_and_keeps_the_sizes_measured() -> None:
    jobs = StandInJobs()
    pool = JobPool(HPC, 2, runner=jobs)
    heard: list[int] = []

    def observe(point: SweepPoint, done: int, total: int) -> None:
        heard.append(done)
        assert total == 12
        if done == 3:
            pool.request_stop()

    result = pool.sweep(SPEC, observe)
    assert result.status == "stopped"
    assert result.message.startswith("stopped after ") and result.message.endswith(" of 6 sizes")
    assert 2 <= len(sizes(result)) < 6


def test_progress_counts_every_point_once_across_the_jobs() -> None:
    heard: list[tuple[int, int]] = []
    JobPool(HPC, 3, runner=StandInJobs()).sweep(SPEC, lambda p, d, t: heard.append((d, t)))
    assert sorted(d for d, _ in heard) == list(range(1, 13))
    assert {t for _, t in heard} == {12}


@pytest.mark.parametrize(("hosts", "devices", "named"), [
    ([HPC], ("cpu",), "no device given is a host's that does start a Slurm job per connection"),
    ([Host("lab", "gpu.example.org")], ("lab:cpu",), "lab's prefix (none) does not start"),
    ([Host("lab", "gpu.example.org", prefix="nice -n 5")], ("hpc:cpu", "lab:cpu"),
     "lab's prefix (nice -n 5) does not start"),
])
def test_parallel_needs_a_host_that_starts_a_job_per_connection(
        hosts: list[Host], devices: tuple[str, ...], named: str) -> None:
    runners = HostRunners([HPC, *hosts], parallel=2)
    with pytest.raises(ConfigError) as refused:
        runners.check_parallel(devices)
    message = str(refused.value)
    assert message.startswith("--parallel 2 measures a host's points on jobs of their own")
    assert named in message and "\n" not in message
    assert message.endswith("points measured at once on one machine would share its cores")


def test_parallel_on_slurm_hosts_is_allowed_and_one_is_always() -> None:
    HostRunners([HPC], parallel=2).check_parallel(("hpc:cpu", "cpu"))
    HostRunners([HPC]).check_parallel(("cpu",))
    with pytest.raises(ConfigError, match="parallel 0 is not allowed; give 1 to 64 jobs"):
        HostRunners([HPC], parallel=0).check_parallel(("hpc:cpu",))
