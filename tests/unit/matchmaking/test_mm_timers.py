"""The turn timer (services/matchmaking/timers.py): warned, then forfeited or taken over.

docs/matchmaking.md "Seats that go quiet": a seat quiet for the mode's turn timer is warned;
still quiet for the grace after the warning it forfeits (2-seat modes) or a bot takes it over
(modes with `quiet: takeover`, and any seat whose player asked for `bot_takeover`); a bot
seat that stays quiet is timed the same way and forfeits.
"""

from __future__ import annotations

from datetime import UTC, datetime

from services.matchmaking.model import GameRecord
from services.matchmaking.modes import load_modes
from services.matchmaking.pools import GameSummary
from services.matchmaking.timers import FORFEIT, IDLE, TAKE_OVER, WARN, _age, decide_timer
from services.platform.games import SEAT_WARNED

MODES = load_modes()
RANKED = MODES["fallen/ranked"]  # 180 s, then 60 s grace, forfeit
EPIC = MODES["land/epic"]  # 300 s, then 120 s grace, takeover


def _fallen(waiting: str = "hero", status: dict[str, str] | None = None) -> GameSummary:
    seats = {"hero": "ann", "dungeon_lord": "bob"}
    return GameSummary(12, False, waiting, seats, status or {})


def _record(takeover: tuple[str, ...] = ()) -> GameRecord:
    return GameRecord(
        "g1", "fallen", "ranked", {"hero": "ann", "dungeon_lord": "bob"}, "x", takeover
    )


def test_the_modes_timers_are_the_documented_ones() -> None:
    assert (RANKED.turn_timer_s, RANKED.grace_s, RANKED.quiet) == (180, 60, "forfeit")
    assert (EPIC.turn_timer_s, EPIC.grace_s, EPIC.quiet) == (300, 120, "takeover")


def test_a_quiet_seat_is_warned_once_its_turn_timer_has_passed() -> None:
    # given a ranked Fallen game waiting for the hero since its last move
    game = _fallen()
    # when the hero has been quiet less than 180 s, then nothing; from 180 s, a warning
    assert decide_timer(RANKED, _record(), game, "CommandApplied", "", 179.9) == IDLE
    assert decide_timer(RANKED, _record(), game, "CommandApplied", "", 180.0) == WARN


def test_a_warned_seat_forfeits_after_its_grace_in_a_forfeit_mode() -> None:
    # given the hero warned (the game's last event is SeatWarned for the hero)
    game = _fallen()
    # when still quiet within the 60 s grace, then nothing; after it, a forfeit
    assert decide_timer(RANKED, _record(), game, SEAT_WARNED, "hero", 59.0) == IDLE
    assert decide_timer(RANKED, _record(), game, SEAT_WARNED, "hero", 60.0) == FORFEIT


def test_a_warned_seat_is_taken_over_in_a_takeover_mode() -> None:
    # given a Land Epic game whose p3 was warned
    seats = {f"p{k}": f"u{k}" for k in range(1, 7)}
    game = GameSummary(40, False, "p3", seats, {"p3": "warned"})
    record = GameRecord("g2", "land", "epic", seats, "x")
    # when p3 stays quiet past the 120 s grace, then a bot takes the seat over
    assert decide_timer(EPIC, record, game, SEAT_WARNED, "p3", 119.0) == IDLE
    assert decide_timer(EPIC, record, game, SEAT_WARNED, "p3", 120.0) == TAKE_OVER


def test_a_player_who_asked_for_bot_takeover_is_taken_over_in_any_mode() -> None:
    # given a ranked Fallen game (a forfeit mode) whose hero queued with bot_takeover
    record = _record(takeover=("hero",))
    # when the warned hero stays quiet past the grace, then a bot takes over, no forfeit
    assert decide_timer(RANKED, record, _fallen(), SEAT_WARNED, "hero", 61.0) == TAKE_OVER
    # and the dungeon lord, who did not ask, still forfeits
    dl = _fallen("dungeon_lord")
    assert decide_timer(RANKED, record, dl, SEAT_WARNED, "dungeon_lord", 61.0) == FORFEIT


def test_a_warning_for_another_seat_does_not_start_this_seats_grace() -> None:
    # given the last event warned the dungeon lord but the game now waits for the hero
    game = _fallen("hero")
    # then the hero is not forfeited; it is warned once its own turn timer has passed
    assert decide_timer(RANKED, _record(), game, SEAT_WARNED, "dungeon_lord", 100.0) == IDLE
    assert decide_timer(RANKED, _record(), game, SEAT_WARNED, "dungeon_lord", 200.0) == WARN


def test_a_stuck_bot_seat_is_warned_then_forfeits_like_a_human_seat() -> None:
    # given a seat a bot plays (a bot: player, or a seat taken over) that does not move
    bot = GameSummary(5, False, "dungeon_lord", {"hero": "ann", "dungeon_lord": "bot:fallen:0"}, {})
    taken = _fallen("hero", {"hero": "taken_over"})
    # when it has been quiet less than the turn timer, then nothing; from it, a warning
    assert decide_timer(RANKED, _record(), bot, "CommandApplied", "", 179.0) == IDLE
    assert decide_timer(RANKED, _record(), bot, "CommandApplied", "", 180.0) == WARN
    # and once warned and still quiet past the grace, it forfeits (never handed to a bot)
    assert decide_timer(RANKED, _record(), bot, SEAT_WARNED, "dungeon_lord", 60.0) == FORFEIT
    assert decide_timer(EPIC, _record(), taken, SEAT_WARNED, "hero", 119.0) == IDLE
    assert decide_timer(EPIC, _record(), taken, SEAT_WARNED, "hero", 120.0) == FORFEIT
    # and an ended game, or one waiting for chance, is never timed
    over = GameSummary(90, True, "hero", _fallen().seats, {})
    chance = _fallen("chance")
    assert decide_timer(RANKED, _record(), over, "GameEnded", "", 3600.0) == IDLE
    assert decide_timer(RANKED, _record(), chance, "CommandApplied", "", 3600.0) == IDLE


def test_idle_time_is_read_from_the_last_events_time_so_a_restart_changes_nothing() -> None:
    # given the game's last event written at a known instant
    at = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)
    # when any scheduler (a fresh or restarted replica) looks 200 s later
    idle = _age(at.isoformat(), at.timestamp() + 200)
    # then it sees the same 200 s of quiet and so the same decision
    assert idle == 200
    assert decide_timer(RANKED, _record(), _fallen(), "CommandApplied", "", idle) == WARN
