"""Verified tokens are remembered per RPC stream of calls, but never past their expiry or
across a secret change."""

from __future__ import annotations

import datetime
import time

import jwt
import pytest

from services.platform import auth
from services.platform.auth import issue_token, verify_token
from services.platform.errors import Unauthenticated

SECRET = "s" * 40
OTHER = "o" * 40


def test_given_a_verified_token_when_sent_again_then_it_is_not_decoded_again(monkeypatch):
    # given a token verified once
    token = issue_token("alice", secret=SECRET)
    assert verify_token(token, SECRET).subject == "alice"
    calls = []
    monkeypatch.setattr(auth, "_verify_hs256", lambda *a: calls.append(a))
    # when it comes again, then the remembered principal answers
    assert verify_token(token, SECRET).subject == "alice"
    assert calls == []


def test_given_a_remembered_token_when_the_secret_changes_then_it_is_refused():
    # given a token remembered under one secret
    token = issue_token("bob", secret=SECRET)
    verify_token(token, SECRET)
    # when checked under another secret, then its signature no longer holds
    with pytest.raises(Unauthenticated):
        verify_token(token, OTHER)


def test_given_a_remembered_token_when_it_expires_then_it_is_refused(monkeypatch):
    # given a token valid for one second, verified and remembered
    token = issue_token("carol", secret=SECRET, ttl_s=1)
    verify_token(token, SECRET)
    # when the clock passes its expiry
    later = time.time() + 5
    monkeypatch.setattr(auth.time, "time", lambda: later)
    monkeypatch.setattr(jwt.api_jwt, "datetime", _at(later))
    # then it is refused as expired
    with pytest.raises(Unauthenticated, match="expired"):
        verify_token(token, SECRET)


def _at(instant: float) -> type[datetime.datetime]:
    """Return a datetime class whose now() is a fixed instant (PyJWT's clock)."""

    class Frozen(datetime.datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[no-untyped-def, override]
            return datetime.datetime.fromtimestamp(instant, tz)

    return Frozen
