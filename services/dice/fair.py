"""The provably fair scheme of docs/fairness.md as pure functions."""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence
from typing import Final, TypeVar

T = TypeVar("T")
SEED_BYTES: Final = 32
_WORDS: Final = struct.Struct(">8I")  # an HMAC-SHA256 block as 8 big-endian 32-bit words
_BLOCK: Final = 64  # SHA-256's block size in bytes, HMAC's key pad


def commitment(server_seed: bytes) -> str:
    """Return the SHA-256 hex commitment of a server seed."""
    return hashlib.sha256(server_seed).hexdigest()


def byte_stream(server_seed: bytes, game_id: str, client_seed: str, nonce: int) -> Iterator[int]:
    """Yield the bytes of HMAC-SHA256 blocks r = 0, 1, 2, ... for one nonce."""
    r = 0
    while True:
        msg = f"{game_id}:{client_seed}:{nonce}:{r}".encode()
        yield from hmac.new(server_seed, msg, hashlib.sha256).digest()
        r += 1


class Keyed:
    """HMAC-SHA256 keyed with a server seed once, for the draws of many nonces.

    RFC 2104's construction on hashlib's SHA-256: the key's inner and outer pads are hashed
    once here, and each block copies those two states instead of setting the key up again.
    The bytes are hmac.digest's (tests/unit/dice/test_fairness.py checks it); it is cheaper
    than a copy of an hmac.HMAC, which goes through Python methods on every block.
    """

    def __init__(self, server_seed: bytes) -> None:
        key = hashlib.sha256(server_seed).digest() if len(server_seed) > _BLOCK else server_seed
        key = key.ljust(_BLOCK, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))

    def digest(self, msg: bytes) -> bytes:
        """Return HMAC-SHA256(server seed, msg)."""
        inner = self._inner.copy()
        inner.update(msg)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


def keyed(server_seed: bytes) -> Keyed:
    """Return HMAC-SHA256 keyed with a server seed, to digest the blocks of many nonces."""
    return Keyed(server_seed)


class Draws:
    """Unbiased integers drawn from one nonce's byte stream by rejection sampling."""

    def __init__(
        self,
        server_seed: bytes,
        game_id: str,
        client_seed: str,
        nonce: int,
        keyed_seed: Keyed | None = None,
    ) -> None:
        self._key = server_seed
        self._keyed = keyed_seed  # keyed(server_seed), shared by the draws of many nonces
        self._prefix = f"{game_id}:{client_seed}:{nonce}:"
        self._block = 0  # the r of the next HMAC block
        # the last block read as 8 big-endian 32-bit words, and how many of them are used:
        # draws take 4 bytes at a time and a block is 32, so a draw never spans two blocks
        self._words: tuple[int, ...] = ()
        self._used = 0

    def _word(self) -> int:
        """Return the stream's next 4 bytes as a big-endian integer (byte_stream's bytes,
        in order)."""
        used = self._used
        if used == len(self._words):
            msg = f"{self._prefix}{self._block}".encode()
            self._words = _WORDS.unpack(self._digest(msg))
            self._block += 1
            used = 0
        self._used = used + 1
        return self._words[used]

    def _digest(self, msg: bytes) -> bytes:
        if self._keyed is None:
            return hmac.digest(self._key, msg, "sha256")
        return self._keyed.digest(msg)

    def uniform(self, k: int) -> int:
        """Return an integer in [0, k) without modulo bias."""
        if k < 1:
            raise ValueError("k must be >= 1")
        limit = (2**32 // k) * k
        while True:
            x = self._word()
            if x < limit:
                return x % k


def roll_faces(draws: Draws, face_lists: Sequence[Sequence[str]]) -> list[int]:
    """Return the face index rolled for each die, drawing in order."""
    return [draws.uniform(len(faces)) for faces in face_lists]


def shuffle(draws: Draws, items: Sequence[T]) -> list[T]:
    """Return items shuffled by Fisher-Yates from the top index down."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = draws.uniform(i + 1)
        out[i], out[j] = out[j], out[i]
    return out
