"""Fixtures for the deployment checks: repo paths, the compose file, an optional docker-compose.

Nothing is installed here. When Debian's `docker-compose` (1.29) is on PATH, the compose
test also runs `docker-compose config`; when it is missing, that test checks the same
things (interpolation, references) in Python instead of skipping.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """Return the repository root."""
    return ROOT


@pytest.fixture(scope="session")
def compose_text() -> str:
    """Return docker-compose.yml as text."""
    return (ROOT / "docker-compose.yml").read_text()


@pytest.fixture(scope="session")
def compose(compose_text: str) -> dict[str, Any]:
    """Return docker-compose.yml parsed by PyYAML (anchors and merge keys resolved)."""
    data = yaml.safe_load(compose_text)
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="session")
def docker_compose_bin() -> str | None:
    """Return the path of a working `docker-compose` binary, or None when there is none."""
    path = shutil.which("docker-compose")
    if path is None:
        return None
    try:
        done = subprocess.run(
            [path, "version", "--short"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if done.returncode == 0 else None
