"""SubmitCommand answers the next turn, so a client needs no ListLegalCommands call when it
holds the seat that acts next; another player's legal commands are never shown."""

from __future__ import annotations

from fallen.rules.v1 import rules_pb2

from tests.integration.test_rules_grpc import md, rules  # noqa: F401  (fixture)


def submit(
    game_id: str, seat: str, version: int, command_id: str
) -> rules_pb2.SubmitCommandRequest:
    return rules_pb2.SubmitCommandRequest(
        game_id=game_id, seat=seat, kind="ask_roll", command_id=command_id,
        expected_version=version,
    )  # fmt: skip


async def new_game(stub, game_id: str, seats: dict[str, str]) -> int:
    created = await stub.CreateGame(
        rules_pb2.CreateGameRequest(game="toy", game_id=game_id, seats=seats),
        metadata=md(seats["a"]),
    )
    return created.version


async def test_given_the_caller_holds_the_next_seat_then_its_legal_commands_come_back(rules):  # noqa: F811
    stub, _ = rules
    # given a toy game where alice holds both seats
    version = await new_game(stub, "n1", {"a": "alice", "b": "alice"})
    # when alice plays seat a
    answer = await stub.SubmitCommand(submit("n1", "a", version, "c1"), metadata=md("alice"))
    # then the answer names seat b's turn with the legal commands ListLegalCommands lists
    assert answer.HasField("next_turn") and answer.next_turn.waiting_for == "b"
    listed = await stub.ListLegalCommands(
        rules_pb2.ListLegalCommandsRequest(game_id="n1", seat="b"), metadata=md("alice")
    )
    assert listed.version == answer.version
    assert answer.next_turn.decision == listed.decision
    assert list(answer.next_turn.commands) == list(listed.commands)
    assert [c.kind for c in answer.next_turn.commands] == ["ask_roll"]


async def test_given_another_player_acts_next_then_only_the_seat_is_named(rules):  # noqa: F811
    stub, _ = rules
    # given a toy game of alice (a) and bob (b)
    version = await new_game(stub, "n2", {"a": "alice", "b": "bob"})
    # when alice plays seat a
    answer = await stub.SubmitCommand(submit("n2", "a", version, "c1"), metadata=md("alice"))
    # then bob's seat is named but his legal commands are not shown to alice
    assert answer.next_turn.waiting_for == "b"
    assert list(answer.next_turn.commands) == []
    # and a retry of the same command id (deduplicated) carries no next turn
    again = await stub.SubmitCommand(submit("n2", "a", version, "c1"), metadata=md("alice"))
    assert again.deduplicated and not again.HasField("next_turn")
    assert again.version == answer.version
