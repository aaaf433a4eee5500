"""A server freezes its start-up heap out of the garbage collector (platform/gcpolicy.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from services.platform.gcpolicy import freeze_startup


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


def test_given_a_started_server_when_frozen_then_its_objects_leave_the_collected_heap(
    unfrozen: None,
) -> None:
    before = gc.get_freeze_count()
    kept = [{"card": i} for i in range(1000)]  # start-up's heap
    assert freeze_startup({}) is True
    assert gc.get_freeze_count() >= before + len(kept)


def test_given_fallen_gc_default_then_nothing_is_frozen(unfrozen: None) -> None:
    before = gc.get_freeze_count()
    assert freeze_startup({"FALLEN_GC": "default"}) is False
    assert gc.get_freeze_count() == before


def test_given_an_unknown_fallen_gc_then_it_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="FALLEN_GC must be freeze or default"):
        freeze_startup({"FALLEN_GC": "x" * 500})
