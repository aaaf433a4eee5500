"""The busy share the faust runner's views interval follows (pure, clock passed in)."""

from __future__ import annotations

import pytest

from services.projections.busy import BusyShare


def test_given_busy_spans_then_the_share_counts_only_the_last_window():
    busy = BusyShare(window_s=1.0)
    # given spans of 0.2 s and 0.3 s, the first partly older than the window
    busy.add(0.0, 0.2)
    busy.add(0.9, 1.2)
    # then at 1.1 the window (0.1 to 1.1) holds 0.1 of the first and 0.2 of the second
    assert busy.share(1.1) == pytest.approx(0.3)
    # and once both are older than the window, nothing
    assert busy.share(3.0) == 0.0


def test_given_an_empty_or_backwards_span_then_it_counts_nothing():
    busy = BusyShare()
    busy.add(1.0, 1.0)
    busy.add(2.0, 1.5)
    assert busy.share(2.0) == 0.0
