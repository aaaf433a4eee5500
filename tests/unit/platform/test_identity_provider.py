"""Tokens from an identity provider (RS256, ES256, EdDSA) against a JWKS served over HTTP
or read from a file: each refusal has its reason, and a rotated key needs no restart."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc

from services.dice.engine import DiceEngine
from services.dice.service import mount as dice_mount
from services.platform.auth import issue_token, verify_token
from services.platform.errors import Unauthenticated
from services.platform.grpcx.server import start_server
from services.platform.store.sqlite import SqliteEventStore

ISSUER = "https://id.example.test/"
AUDIENCE = "fallen-api"
ALGS = {"RS256": rsa, "ES256": ec, "EdDSA": ed25519}


def new_key(alg: str) -> Any:
    if alg == "RS256":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    if alg == "ES256":
        return ec.generate_private_key(ec.SECP256R1())
    return ed25519.Ed25519PrivateKey.generate()


def public_jwk(private: Any, alg: str, kid: str) -> dict[str, Any]:
    algo = jwt.get_algorithm_by_name(alg)
    jwk = json.loads(algo.to_jwk(private.public_key()))
    return {**jwk, "kid": kid, "alg": alg, "use": "sig"}


@dataclass
class Keys:
    """Private keys by kid, and the public JWKS a provider publishes."""

    private: dict[str, tuple[Any, str]] = field(default_factory=dict)

    def add(self, kid: str, alg: str) -> None:
        self.private[kid] = (new_key(alg), alg)

    def jwks(self) -> dict[str, Any]:
        return {"keys": [public_jwk(k, alg, kid) for kid, (k, alg) in self.private.items()]}

    def token(self, kid: str, **claims: Any) -> str:
        key, alg = self.private[kid]
        now = int(time.time())
        body = {"sub": "carol", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600}
        body.update(claims)
        return jwt.encode(body, key, algorithm=alg, headers={"kid": kid})


@pytest.fixture(scope="module")
def base_keys() -> Keys:
    k = Keys()
    for alg in ALGS:
        k.add(f"k-{alg}", alg)
    return k


@pytest.fixture
def keys(base_keys: Keys) -> Keys:
    return Keys(dict(base_keys.private))


@pytest.fixture
def jwks_url(keys: Keys, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Serve the keys' JWKS over HTTP on a loopback port and configure the provider."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps(keys.jwks()).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/.well-known/jwks.json"
    monkeypatch.setenv("FALLEN_JWT_JWKS_URL", url)
    monkeypatch.delenv("FALLEN_JWT_KEY_FILE", raising=False)
    monkeypatch.setenv("FALLEN_JWT_ISSUER", ISSUER)
    monkeypatch.setenv("FALLEN_JWT_AUDIENCE", AUDIENCE)
    monkeypatch.setenv("FALLEN_JWT_JWKS_COOLDOWN_S", "0")
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("alg", list(ALGS))
def test_given_a_jwks_url_when_a_provider_token_arrives_then_its_player_is_the_caller(
    keys: Keys, jwks_url: str, alg: str
) -> None:
    # when a token signed by the provider's key of each algorithm is verified
    principal = verify_token(keys.token(f"k-{alg}"))
    # then it names the player, never a service
    assert (principal.subject, principal.is_service) == ("idp:carol", False)


def test_given_a_rotated_key_when_a_token_uses_the_new_kid_then_accepted_without_restart(
    keys: Keys, jwks_url: str
) -> None:
    # given the provider's keys were fetched once
    assert verify_token(keys.token("k-RS256")).subject == "idp:carol"
    # when the provider publishes a new key and signs with it
    keys.add("k-new", "ES256")
    # then the same process accepts it
    assert verify_token(keys.token("k-new", sub="dave")).subject == "idp:dave"


def test_given_hs256_dev_tokens_when_a_provider_is_configured_then_they_still_work(
    jwks_url: str,
) -> None:
    assert verify_token(issue_token("alice")).subject == "alice"
    assert verify_token(issue_token("service:x", service=True)).is_service


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"iss": "https://evil.example.test/"}, "issuer"),
        ({"aud": "someone-else"}, "audience"),
        ({"exp": -120}, "expired"),  # times are offsets from now (added when the test runs)
        ({"nbf": 120}, "not yet valid"),
        ({"sub": ""}, "subject"),
    ],
)
def test_given_a_bad_claim_when_verifying_then_unauthenticated_with_its_reason(
    keys: Keys, jwks_url: str, claims: dict[str, Any], reason: str
) -> None:
    now = int(time.time())
    timed = {k: now + v if k in ("exp", "nbf") else v for k, v in claims.items()}
    with pytest.raises(Unauthenticated) as info:
        verify_token(keys.token("k-RS256", **timed))
    assert reason in str(info.value).lower()


def test_given_small_clock_skew_when_verifying_then_leeway_accepts_it(
    keys: Keys, jwks_url: str
) -> None:
    # a token that expired 5 s ago and one valid from 5 s ahead pass the 30 s leeway
    now = int(time.time())
    assert verify_token(keys.token("k-ES256", exp=now - 5)).subject == "idp:carol"
    assert verify_token(keys.token("k-ES256", nbf=now + 5)).subject == "idp:carol"


def test_given_an_unknown_kid_or_a_foreign_key_when_verifying_then_unauthenticated(
    keys: Keys, jwks_url: str
) -> None:
    # given a key the provider never published
    stranger = Keys()
    stranger.add("k-unknown", "RS256")
    stranger.private["k-RS256"] = stranger.private["k-unknown"]
    # then its kid is unknown, and a known kid with a foreign signature fails
    with pytest.raises(Unauthenticated, match="kid"):
        verify_token(stranger.token("k-unknown"))
    with pytest.raises(Unauthenticated, match=r"[Ss]ignature"):
        verify_token(stranger.token("k-RS256"))


@pytest.mark.parametrize("alg", ["HS512", "none", "PS256"])
def test_given_an_algorithm_not_accepted_when_verifying_then_unauthenticated(
    keys: Keys, jwks_url: str, alg: str
) -> None:
    key: Any = {"HS512": "x" * 64, "none": None, "PS256": keys.private["k-RS256"][0]}[alg]
    token = jwt.encode({"sub": "carol", "iss": ISSUER, "aud": AUDIENCE}, key, algorithm=alg)
    with pytest.raises(Unauthenticated, match="algorithm"):
        verify_token(token)


def test_given_no_provider_when_an_rs256_token_arrives_then_unauthenticated(
    keys: Keys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FALLEN_JWT_JWKS_URL", raising=False)
    monkeypatch.delenv("FALLEN_JWT_KEY_FILE", raising=False)
    with pytest.raises(Unauthenticated, match="not accepted"):
        verify_token(keys.token("k-RS256"))


def test_given_a_jwks_file_when_it_gains_a_key_then_the_new_kid_is_accepted(
    keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a provider configured with a JWKS file
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(keys.jwks()))
    monkeypatch.delenv("FALLEN_JWT_JWKS_URL", raising=False)
    monkeypatch.setenv("FALLEN_JWT_KEY_FILE", str(path))
    monkeypatch.setenv("FALLEN_JWT_ISSUER", ISSUER)
    monkeypatch.setenv("FALLEN_JWT_AUDIENCE", AUDIENCE)
    assert verify_token(keys.token("k-EdDSA")).subject == "idp:carol"
    # when the file gains a key
    keys.add("k-file-2", "EdDSA")
    with pytest.raises(Unauthenticated, match="kid"):
        verify_token(keys.token("k-file-2"))
    path.write_text(json.dumps(keys.jwks()))
    # then its tokens are accepted without a restart
    assert verify_token(keys.token("k-file-2")).subject == "idp:carol"


async def test_given_a_served_api_when_called_with_provider_tokens_then_statuses_match(
    keys: Keys, jwks_url: str, tmp_path: Path
) -> None:
    # given the dice service serving with a provider configured
    store = SqliteEventStore(tmp_path / "idp.db")
    running = await start_server([dice_mount(DiceEngine(store))], "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    stub = dice_pb2_grpc.DiceServiceStub(channel)
    try:
        # when a valid and a wrong-audience provider token call a player RPC
        good = (("authorization", f"Bearer {keys.token('k-ES256')}"),)
        bad = (("authorization", f"Bearer {keys.token('k-ES256', aud='other')}"),)
        kinds = await stub.ListKinds(dice_pb2.ListKindsRequest(), metadata=good)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.ListKinds(dice_pb2.ListKindsRequest(), metadata=bad)
        # then the first is answered and the second is UNAUTHENTICATED
        assert kinds.kinds
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        await channel.close()
        await running.stop(0)
        await store.close()
