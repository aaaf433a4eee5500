"""Start the backend the way `make run` does (one process, SQLite, memory stream, web page)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from services.platform.localservers import free_port, wait_for_port

FALLENCTL = str(Path(sys.executable).parent / "fallenctl")


@dataclass(frozen=True)
class Running:
    """A served backend: its gRPC and web addresses and its store file."""

    grpc: str
    web: str
    db: Path


@contextlib.contextmanager
def make_run(tmp: Path) -> Iterator[Running]:
    """Run `fallenctl serve` as `make run` does, on free ports; stop it afterwards."""
    grpc_port, web_port = free_port(), free_port()
    db = tmp / "fallen.db"
    env = {**os.environ, "FALLEN_DEV": "1"}
    for var in ("FALLEN_JWT_SECRET", "FALLEN_VIEWS", "FALLEN_PROJECTIONS", "FALLEN_STORE"):
        env.pop(var, None)
    cmd = [
        FALLENCTL, "serve", "--store", f"sqlite:///{db}", "--stream", "memory",
        "--port", str(grpc_port), "--web-port", str(web_port), "--metrics-port", "0",
    ]  # fmt: skip
    log = open(tmp / "serve.log", "wb")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        for port in (grpc_port, web_port):
            _wait(proc, port, tmp / "serve.log")
        yield Running(f"127.0.0.1:{grpc_port}", f"http://127.0.0.1:{web_port}", db)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _wait(proc: subprocess.Popen[bytes], port: int, log: Path, timeout_s: float = 90) -> None:
    """Wait for the server to listen on port; fail with its log if it exits first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"fallenctl serve exited: {log.read_text()[-2000:]}")
        try:
            wait_for_port(port, 1)
            return
        except TimeoutError:
            continue
    raise TimeoutError(f"fallenctl serve did not listen on {port}: {log.read_text()[-2000:]}")


def play_bots(target: str, seed: str, pace_ms: int = 0) -> subprocess.Popen[bytes]:
    """Start one bot-played Fallen game against target (a background process)."""
    env = {**os.environ, "FALLEN_DEV": "1"}
    env.pop("FALLEN_JWT_SECRET", None)
    cmd = [FALLENCTL, "play", "fallen", "--target", target, "--seed", seed]
    return subprocess.Popen(
        [*cmd, "--pace-ms", str(pace_ms)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
