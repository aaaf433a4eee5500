"""The compose stack of docker-compose.yml, up for the stack tests (`make stack-test`).

Collected only when FALLEN_STACK=1 (tests/conftest.py): the images must exist
(deploy/local/stack-test.sh builds them) and a Docker engine must answer.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.stack.compose import ROOT, Stack, StackError
from tests.stack.logdump import report

COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="session")
def stack(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Stack]:
    """Bring the whole stack up (two containers of every service of the image but the
    relay), wait for every healthcheck, tear it down (volumes too); when it did not come up
    or a test failed, print the containers' error log lines first (tests/stack/logdump.py)."""
    secret = os.environ.get("FALLEN_JWT_SECRET") or secrets.token_hex(32)
    os.environ["FALLEN_JWT_SECRET"] = secret  # the test's tokens are signed like the stack's
    os.environ.pop("FALLEN_DEV", None)
    env = {
        **os.environ,
        "FALLEN_JWT_SECRET": secret,
        # ${FALLEN_<NAME>_PORT-default} host ports set empty: ephemeral, so pools can scale
        **{name: "" for name in re.findall(r"\$\{(FALLEN_[A-Z_]+_PORT)-", COMPOSE.read_text())},
        "FALLEN_TAG": os.environ.get("FALLEN_TAG", "dev"),
    }
    workdir: Path = tmp_path_factory.mktemp("stack")
    reuse = os.environ.get("FALLEN_STACK_REUSE", "")  # a project already up (debugging)
    s = Stack(reuse or f"fallenstack{os.getpid()}", workdir, env)
    if reuse:
        yield s
        return
    failed = request.session.testsfailed
    broken = False
    try:
        start = time.monotonic()
        s.up(s.scale())  # scaled at once: one health-ordered start instead of two
        took = s.wait_healthy()
        print(
            f"\nstack: {len(s.services())} services, {len(s.containers())} containers "
            f"healthy {took:.1f} s after up ({time.monotonic() - start:.1f} s with up)"
        )
        yield s
    except StackError as err:
        broken = True
        pytest.fail(str(err))
    finally:
        if broken or request.session.testsfailed > failed:
            print(f"\n{report(s.project)}", flush=True)
        s.down()
        left = s.containers()
        assert not left, f"containers left behind: {left}"
