"""Replay views travel as RFC 7386 merge patches; applying them rebuilds every view."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from services.projections.replay_views import apply_patch, merge_patch

LEAF = (
    st.booleans()
    | st.integers(-5, 5)
    | st.text(max_size=3)
    | st.lists(st.integers(0, 3), max_size=3)
)
VIEW = st.recursive(
    st.dictionaries(st.sampled_from("abcd"), LEAF, max_size=4),
    lambda inner: st.dictionaries(st.sampled_from("abcde"), LEAF | inner, max_size=4),
    max_leaves=12,
)


def without_nulls(view: dict[str, Any]) -> dict[str, Any]:
    """Return the view with null-valued keys dropped (a patch cannot tell them apart)."""
    return {
        k: without_nulls(v) if isinstance(v, dict) else v for k, v in view.items() if v is not None
    }


@settings(max_examples=80, deadline=None)
@given(st.lists(VIEW, min_size=1, max_size=6))
def test_patches_rebuild_each_view_of_a_replay(views):
    # given a sequence of views, when each is sent as a patch against the previous one
    rebuilt = views[0]
    for old, new in itertools.pairwise(views):
        patch = merge_patch(old, new)
        rebuilt = apply_patch(rebuilt, patch)
        # then applying the patches yields each view again
        assert without_nulls(rebuilt) == without_nulls(new)


def test_an_unchanged_view_is_an_empty_patch_and_a_removed_key_is_null():
    view = {"phase": "story", "zones": {"hand": [1, 2], "deck": {"count": 3}}}
    assert merge_patch(view, view) == {}
    changed = {"phase": "story", "zones": {"hand": [1], "deck": {"count": 3}}, "light": True}
    assert merge_patch(view, changed) == {"zones": {"hand": [1]}, "light": True}
    assert merge_patch(changed, view) == {"zones": {"hand": [1, 2]}, "light": None}
