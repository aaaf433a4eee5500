"""Count the work a test's code sends to worker threads (asyncio.to_thread), by name."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest


def count_thread_hops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Return a list that gets the name of every function run with asyncio.to_thread."""
    hops: list[str] = []
    real = asyncio.to_thread

    async def counted(fn: Callable[..., Any], *args: Any) -> Any:
        hops.append(fn.__name__)
        return await real(fn, *args)

    monkeypatch.setattr(asyncio, "to_thread", counted)
    return hops
