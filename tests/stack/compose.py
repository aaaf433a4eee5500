"""Drive a docker-compose project of docker-compose.yml: up, health, ports, kill, down."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
GRPC_PORT = 50051
REDIS_PORT = 6379
HEALTH_TIMEOUT_S = 180.0
REPLICAS = 2  # containers of each service of the image, as the stack is brought up
NOT_SCALED = ("relay",)  # one relay per shard: it must never run twice


class StackError(AssertionError):
    """The stack did not come up healthy, or a compose/docker command failed."""


def docker(*args: str, timeout: float = 120, check: bool = True) -> str:
    """Run a docker command; return its stdout, raise StackError on failure."""
    try:
        done = subprocess.run(
            ["docker", *args], capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as err:
        raise StackError(f"docker {' '.join(args)}: no answer in {timeout:.0f} s") from err
    if check and done.returncode != 0:
        raise StackError(f"docker {' '.join(args)}: exit {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def compose_binary() -> list[str]:
    """Return the compose command: docker-compose (v1) if present, else `docker compose`."""
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return ["docker", "compose"]


def override_for(config: dict[str, Any]) -> dict[str, Any]:
    """Return an override that publishes, on ephemeral 127.0.0.1 ports, what the test reads.

    Every service of the fallen image that does not publish its gRPC port gets one, and
    redis gets its port, so services added to docker-compose.yml are reached without
    changes here.
    """
    services: dict[str, Any] = {}
    for name, svc in config["services"].items():
        image = str(svc.get("image", ""))
        published = {_container_port(p) for p in svc.get("ports", [])}
        if name == "redis":
            services[name] = {"ports": [f"127.0.0.1::{REDIS_PORT}"]}
        elif (
            image.startswith("fallen-backend") and _serves_grpc(svc) and GRPC_PORT not in published
        ):
            services[name] = {"ports": [f"127.0.0.1::{GRPC_PORT}"]}
    return {"version": config.get("version", "3.8"), "services": services}


def _container_port(port: Any) -> int:
    """Return the container port of a compose ports entry (short or long form)."""
    if isinstance(port, dict):
        return int(port["target"])
    return int(str(port).rsplit(":", 1)[-1].split("/")[0])


def _serves_grpc(svc: dict[str, Any]) -> bool:
    """Return whether a service's healthcheck is the gRPC health check (it serves 50051)."""
    test = (svc.get("healthcheck") or {}).get("test") or []
    return "services.platform.healthcheck" in " ".join(map(str, test))


@dataclass
class Stack:
    """One compose project of docker-compose.yml plus the generated test override."""

    project: str
    workdir: Path
    env: dict[str, str]
    config: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        base = self._run("-f", str(ROOT / "docker-compose.yml"), "config", files=False)
        self.config = yaml.safe_load(base)
        override = self.workdir / "stack-test.override.yml"
        override.write_text(yaml.safe_dump(override_for(self.config)))
        self.files = ["-f", str(ROOT / "docker-compose.yml"), "-f", str(override)]

    def _run(self, *args: str, files: bool = True, timeout: float = 300) -> str:
        cmd = [*compose_binary(), "-p", self.project, *(self.files if files else []), *args]
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, env=self.env, cwd=ROOT,
                check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as err:
            raise StackError(f"{' '.join(cmd[1:])}: did not finish in {timeout:.0f} s") from err
        if done.returncode != 0:
            raise StackError(f"{' '.join(cmd[1:])}: exit {done.returncode}:\n{done.stderr[-3000:]}")
        return done.stdout

    def services(self) -> list[str]:
        """Return every service of the compose file."""
        return sorted(self.config["services"])

    def up(self, scale: dict[str, int] | None = None) -> None:
        """Create or scale the stack (the image is built beforehand: no build here)."""
        flags = [f"--scale={n}={k}" for n, k in (scale or {}).items()]
        self._run("up", "-d", "--no-build", "--no-recreate", *flags)

    def down(self) -> None:
        """Remove the project's containers, networks and volumes."""
        self._run("down", "-v", "--remove-orphans", "--timeout", "5")

    def containers(self, service: str | None = None) -> list[str]:
        """Return the ids of the project's containers (of one service), running or not."""
        label = [f"label=com.docker.compose.project={self.project}"]
        if service:
            label.append(f"label=com.docker.compose.service={service}")
        args = ["ps", "-a", "-q", "--no-trunc"]
        for item in label:
            args += ["--filter", item]
        return docker(*args).split()

    def inspect(self, ids: list[str]) -> list[dict[str, Any]]:
        """Return docker inspect of containers."""
        return json.loads(docker("inspect", *ids)) if ids else []

    def logs(self, cid: str, lines: int = 40) -> str:
        """Return the last log lines of a container."""
        done = subprocess.run(
            ["docker", "logs", "--tail", str(lines), cid], capture_output=True, text=True,
            timeout=30, check=False,
        )  # fmt: skip
        return (done.stdout + done.stderr)[-4000:]

    def wait_healthy(self, timeout: float = HEALTH_TIMEOUT_S) -> float:
        """Wait until every container of every service is running and healthy; return seconds.

        Fails at once, with the container's log, on an unhealthy, exited or restarting one.
        """
        start = time.monotonic()
        while True:
            states = {}
            for info in self.inspect(self.containers()):
                name = info["Name"].lstrip("/")
                state = info["State"]
                health = (state.get("Health") or {}).get("Status", "none")
                states[name] = (state["Status"], health)
                looping = state.get("Restarting") or info.get("RestartCount", 0) >= 2
                if health == "unhealthy" or state["Status"] in ("exited", "dead") or looping:
                    probes = (state.get("Health") or {}).get("Log") or [{}]
                    raise StackError(
                        f"container {name} is {state['Status']}/{health} "
                        f"(restarts {info.get('RestartCount')}), last probe: "
                        f"{str(probes[-1].get('Output', ''))[-500:]!r}\n{self.logs(info['Id'])}"
                    )
            have = {
                info["Config"]["Labels"].get("com.docker.compose.service")
                for info in self.inspect(self.containers())
            }
            missing = set(self.services()) - have
            if not missing and all(v == ("running", "healthy") for v in states.values()):
                return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise StackError(f"not healthy after {timeout:.0f} s (missing {missing}): {states}")
            time.sleep(1)

    def port(self, cid: str, container_port: int) -> int:
        """Return the 127.0.0.1 host port a container publishes container_port on."""
        out = docker("port", cid, f"{container_port}/tcp")
        for line in out.splitlines():
            host, _, port = line.strip().rpartition(":")
            if host in ("127.0.0.1", "0.0.0.0"):
                return int(port)
        raise StackError(f"{cid[:12]} publishes no {container_port}: {out!r}")

    def endpoints(self, service: str, container_port: int = GRPC_PORT) -> list[str]:
        """Return 127.0.0.1:PORT of every container of a service."""
        return [f"127.0.0.1:{self.port(c, container_port)}" for c in self.containers(service)]

    def command_of(self, service: str) -> str:
        """Return the `fallenctl serve` service a compose service runs (its first word)."""
        command = self.config["services"][service].get("command") or [""]
        return str(command[0])

    def wait_container_healthy(self, cid: str, timeout: float = HEALTH_TIMEOUT_S) -> float:
        """Wait until one container is running and healthy; return seconds (StackError after
        timeout, or at once when it is unhealthy or exited, with its log)."""
        start = time.monotonic()
        while True:
            (info,) = self.inspect([cid])
            state = info["State"]
            health = (state.get("Health") or {}).get("Status", "none")
            if state["Status"] == "running" and health == "healthy":
                return time.monotonic() - start
            if health == "unhealthy" or state["Status"] in ("exited", "dead"):
                raise StackError(
                    f"container {info['Name'].lstrip('/')} is {state['Status']}/{health}\n"
                    f"{self.logs(cid)}"
                )
            if time.monotonic() - start > timeout:
                raise StackError(
                    f"container {info['Name'].lstrip('/')} not healthy after {timeout:.0f} s "
                    f"({state['Status']}/{health})\n{self.logs(cid)}"
                )
            time.sleep(0.5)

    def of_image(self) -> list[str]:
        """Return the services that run the project image (fallen-backend)."""
        return [
            name
            for name, svc in self.config["services"].items()
            if str(svc.get("image", "")).startswith("fallen-backend")
        ]

    def scale(self) -> dict[str, int]:
        """Return the replicas the stack is brought up with: REPLICAS of every service of
        the image but the relay (one per shard), one of redis and kafka."""
        return {name: REPLICAS for name in self.of_image() if name not in NOT_SCALED}

    def services_running(self, prefix: str) -> list[str]:
        """Return the services whose `fallenctl serve` command names a service with prefix."""
        out = []
        for name, svc in self.config["services"].items():
            command = svc.get("command") or []
            if command and str(command[0]).startswith(prefix) and _serves_grpc(svc):
                out.append(name)
        return sorted(out)
