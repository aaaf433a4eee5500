"""Each payload is encoded once per append: the hash and the stored text built from the
pre-encoded payload equal the ones built from the objects, byte for byte."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.canonical import canonical_json, chain_hash
from services.platform.envelope import NewEvent
from services.platform.store.base import seal, seal_encoded
from services.platform.store.redis import encode_envelope, encode_sealed

TEXT = st.text(max_size=12)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False,
    allow_infinity=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)  # fmt: skip
VISIBILITY = st.sampled_from(["public", "nobody"]) | st.lists(
    st.text(min_size=1, max_size=6), min_size=1, max_size=3
)


@settings(max_examples=60, deadline=None)
@given(
    data=st.dictionaries(TEXT, JSON, max_size=5),
    vis=VISIBILITY,
    type_=st.text(min_size=1, max_size=20),
    stream=st.text(min_size=1, max_size=20),
)
def test_given_any_payload_when_sealed_once_then_hash_and_body_match(data, vis, type_, stream):
    # given one event with an arbitrary JSON payload and visibility
    event = NewEvent(type_, data, vis, causation_id="c\u00e9", correlation_id="x")
    # when it is sealed with its payload encoded once
    [(env, vis_json, data_json)] = seal_encoded(stream, 3, "0" * 64, [event], "2026-12-01T00:00:00")
    # then the texts are the canonical ones, and hash and stored body equal the slow path
    assert data_json == canonical_json(data) and vis_json == canonical_json(env.visibility)
    assert env.hash == chain_hash(stream, 3, type_, env.visibility, data, "0" * 64)
    assert encode_sealed(env, vis_json, data_json) == encode_envelope(env)
    assert seal(stream, 3, "0" * 64, [event], "2026-12-01T00:00:00")[0].hash == env.hash


@settings(max_examples=200, deadline=None)
@given(value=JSON | st.dictionaries(TEXT, JSON, max_size=5))
def test_given_any_value_then_canonical_json_is_json_dumps_sorted_compact(value):
    # given any JSON value; when encoded, then the text is json.dumps's with the canonical
    # options (canonical_json reuses one C encoder instead of building one per call)
    import json

    expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(value) == expected


@settings(max_examples=200, deadline=None)
@given(
    stream=st.text(max_size=30),
    type_=st.text(max_size=30),
    prev=st.text(max_size=70),
    version=st.integers(0, 2**70),
    vis=VISIBILITY,
    data=st.dictionaries(TEXT, JSON, max_size=3),
)
def test_given_any_header_when_hashed_from_texts_then_the_digest_is_the_records(
    stream, type_, prev, version, vis, data
):
    # given any stream, type, previous hash and version (escapes, non-ASCII, big ints)
    from services.platform.canonical import chain_hash_encoded

    # when the chain hash is built from the pre-encoded payload (the fast header encoding)
    vis_json, data_json = canonical_json(vis), canonical_json(data)
    fast = chain_hash_encoded(stream, version, type_, vis_json, data_json, prev)
    # then it is the SHA-256 of the canonical record built from the objects
    assert fast == chain_hash(stream, version, type_, vis, data, prev)
