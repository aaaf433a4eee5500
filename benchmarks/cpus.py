"""What the CPU does during a benchmark, and which cores its processes may use (Linux).

``CpuMeter`` reads /proc: the machine's busy share of all its cores and one process's own
CPU. ``split_cpus`` gives one process (a worker) cores of its own and keeps the benchmark
(its threads, the servers it starts afterwards, and a local server it names) on the
others, as a deployment that runs the worker in its own container with its own CPU would.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path


def machine_ticks() -> tuple[int, int] | None:
    """Return (busy, total) CPU ticks of the whole machine so far, or None off Linux."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    ticks = [int(x) for x in fields[:8]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return sum(ticks) - idle, sum(ticks)


def process_seconds(pid: int) -> float | None:
    """Return the CPU seconds (user and system) a process used so far, or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_named(name: str, parent: int | None = None) -> list[int]:
    """Return the pids of a process's children (default: this one's) whose command is name."""
    parent = os.getpid() if parent is None else parent
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            comm, rest = (entry / "stat").read_text().split("(", 1)[1].rsplit(")", 1)
        except (OSError, ValueError):
            continue
        if comm == name and int(rest.split()[1]) == parent:
            found.append(int(entry.name))
    return found


@dataclass
class CpuMeter:
    """The machine's busy share, and named processes' CPU (in cores), between start and
    stop: ``{"machine_cpu_busy": 0..1, "<name>_cpu_cores": cores, ...}``."""

    pids: dict[str, int]
    started: float = 0.0
    machine: tuple[int, int] | None = None
    processes: dict[str, float | None] = field(default_factory=dict)
    figures: dict[str, float] = field(default_factory=dict)

    def start(self) -> None:
        self.started, self.machine = time.perf_counter(), machine_ticks()
        self.processes = {name: process_seconds(pid) for name, pid in self.pids.items()}

    def stop(self) -> dict[str, float]:
        """Return the figures (what Linux tells; a process that is gone has none)."""
        took = max(time.perf_counter() - self.started, 1e-6)
        now = machine_ticks()
        if now is not None and self.machine is not None and now[1] > self.machine[1]:
            busy = (now[0] - self.machine[0]) / (now[1] - self.machine[1])
            self.figures["machine_cpu_busy"] = round(busy, 3)
        for name, pid in self.pids.items():
            before, after = self.processes.get(name), process_seconds(pid)
            if before is not None and after is not None:
                self.figures[f"{name}_cpu_cores"] = round((after - before) / took, 3)
        return self.figures


@dataclass(frozen=True)
class CpuSplit:
    """Cores for the measured worker, and cores for everything else."""

    worker: frozenset[int]
    rest: frozenset[int]


def _set(pid: int, cpus: frozenset[int]) -> bool:
    """Set a process's (or thread's) cores; return False if Linux refused or it is gone."""
    try:
        os.sched_setaffinity(pid, cpus)
    except (OSError, AttributeError):
        return False
    return True


def _threads() -> list[int]:
    """Return this process's thread ids (a thread's cores are its own on Linux)."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        return [0]


@contextmanager
def split_cpus(others: tuple[int, ...] = ()) -> Iterator[CpuSplit | None]:
    """Keep this process's threads (and what they start from now on) and the processes
    ``others`` (say a local Redis) off the last core, which a worker may then take with
    ``CpuSplit.worker``; yield None where that cannot be done (one core, not Linux).
    Restores every affinity it changed."""
    getter = getattr(os, "sched_getaffinity", None)
    cpus = frozenset(getter(0)) if getter is not None else frozenset()
    if len(cpus) < 2:
        yield None
        return
    split = CpuSplit(worker=frozenset({max(cpus)}), rest=cpus - {max(cpus)})
    changed: list[tuple[int, frozenset[int]]] = []
    for pid in [*_threads(), *others]:
        before = _cores(pid)
        if before is not None and _set(pid, split.rest):
            changed.append((pid, before))
    try:
        yield split
    finally:
        for pid, before in reversed(changed):
            _set(pid, before)


def _cores(pid: int) -> frozenset[int] | None:
    """Return a process's (or thread's) cores, or None when it is gone or unreadable."""
    try:
        return frozenset(os.sched_getaffinity(pid))
    except OSError:
        return None
