"""The grpcurl walkthrough of docs/clients.md runs against a `make run` server, command by
command, and each sample output it shows agrees with what the server answers."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from services.platform.auth import issue_token
from tests.support.grpcurl_lines import (
    has_pair,
    invoke,
    load_descriptors,
    sample_pairs,
    walkthrough,
)
from tests.support.make_run import make_run

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "clients.md"


def test_the_walkthrough_is_read_whole() -> None:
    # given the guide, when its grpcurl section is read, then every command is found
    calls = walkthrough(GUIDE.read_text())
    verbs = [c.positional()[1] for c in calls]
    assert verbs[:2] == ["list", "describe"]
    assert "fallen.rules.v1.RulesService/SubmitCommand" in verbs
    assert all(c.positional()[0] == "127.0.0.1:50051" for c in calls)


def test_the_grpcurl_walkthrough_answers_as_the_guide_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.setenv("FALLEN_SEED_WAIT_S", "120")  # as make run: chance waits for seeds
    calls = walkthrough(GUIDE.read_text())
    env = {"A": issue_token("alice"), "B": issue_token("bob")}
    pool = load_descriptors()
    with make_run(tmp_path) as served, grpc.insecure_channel(served.grpc) as channel:
        for call in calls:
            verb = call.positional()[1]
            if verb == "list":
                continue  # reflection: tests/integration covers the listing itself
            if verb == "describe":
                # the sample names a field as `describe` prints it: type, name and number
                message = pool.FindMessageTypeByName(call.positional()[2])
                shown = " ".join(call.sample)
                for f in message.fields:
                    if f" {f.name} = " in shown:
                        assert f" {f.name} = {f.number};" in shown, shown
                continue
            # when the command is sent as grpcurl would send it
            answer = invoke(channel, call, env)
            # then every "key": "value" of the sample under it is in the answer
            for key, value in sample_pairs(call.sample):
                assert has_pair(answer, key, value), (verb, key, value, answer)
