"""Internal channels name a pool by DNS and spread calls over every replica it resolves to."""

from __future__ import annotations

import pytest

from services.platform.grpcx.client import INTERNAL_CHANNEL_OPTIONS, pool_target


@pytest.mark.parametrize(
    ("address", "target"),
    [
        ("rules-worlds:50051", "dns:///rules-worlds:50051"),
        ("127.0.0.1:7000", "dns:///127.0.0.1:7000"),
        ("dns:///rules-land:50051", "dns:///rules-land:50051"),
        ("ipv4:127.0.0.1:1,127.0.0.1:2", "ipv4:127.0.0.1:1,127.0.0.1:2"),
        ("unix:/run/fallen.sock", "unix:/run/fallen.sock"),
    ],
)
def test_a_plain_address_is_resolved_by_dns_and_a_target_is_kept(address: str, target: str) -> None:
    assert pool_target(address) == target


def test_internal_channels_balance_round_robin() -> None:
    # gRPC's default (pick_first) would send every call of a channel to one replica
    assert ("grpc.lb_policy_name", "round_robin") in INTERNAL_CHANNEL_OPTIONS
