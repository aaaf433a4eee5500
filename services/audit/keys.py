"""Check that draws are consumed in nonce order, each by the decision its key names (pure).

Every DiceRolled / DiceShuffleDrawn of a game carries ``key``: the game stream and version of
the decision it answers (services/platform/decision.py). Read in nonce order, the keys must be
well formed, name this game, never repeat (a second draw for one decision is a re-roll) and
never go back in the game (reordered). Logs written before keys existed carry none at all;
they are checked by the older rule (each chance decision takes the next unused draw).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from services.audit.dicecheck import DECK_SHUFFLED, Problem
from services.platform.decision import parse_key
from services.platform.envelope import Envelope


@dataclass
class KeyFindings:
    """The problems of the keys, and each decision key's draw nonce."""

    keyed: bool
    problems: list[Problem] = field(default_factory=list)
    by_key: dict[str, int] = field(default_factory=dict)


def _at(draw: Envelope, what: str) -> Problem:
    """Return a problem at a draw, naming its nonce."""
    return Problem(draw.stream, draw.version, f"nonce {draw.data.get('nonce')}: {what}")


def check_keys(
    game_id: str, draws: Mapping[int, Envelope], deck_events: Sequence[Envelope] = ()
) -> KeyFindings:
    """Return the key problems of a game's draws (in nonce order) and the key -> nonce map."""
    out = KeyFindings(keyed=any(d.data.get("key") for d in draws.values()))
    if not out.keyed:
        return out
    last_version = 0
    for nonce in sorted(draws):
        draw = draws[nonce]
        key = str(draw.data.get("key") or "")
        parsed = parse_key(key)
        if not key:
            out.problems.append(_at(draw, "has no decision key"))
        elif parsed is None or parsed.game_id != game_id:
            out.problems.append(_at(draw, f"key {key!r} names no decision of game-{game_id}"))
        elif key in out.by_key:
            first = out.by_key[key]
            what = f"repeats key {key!r} of nonce {first} (a second draw for one decision)"
            out.problems.append(_at(draw, what))
        elif parsed.version < last_version:
            what = f"key {key!r} goes back to version {parsed.version} after {last_version}"
            out.problems.append(_at(draw, what + " (draws out of decision order)"))
        else:
            out.by_key[key] = nonce
            last_version = parsed.version
    for env in deck_events:
        d = env.data
        if env.type != DECK_SHUFFLED or "key" not in d or not isinstance(d.get("nonce"), int):
            continue
        drawn = draws.get(int(d["nonce"]))
        if drawn is not None and drawn.data.get("key") != d["key"]:
            what = f"key {d['key']!r} is not the key of dice nonce {d['nonce']}"
            out.problems.append(Problem(env.stream, env.version, what))
    return out


def unused_problems(draws: Mapping[int, Envelope], unused: Sequence[int]) -> list[Problem]:
    """Return one problem per draw that no decision consumed."""
    out = []
    for nonce in unused:
        key = draws[nonce].data.get("key")
        named = f" (key {key!r})" if key else ""
        out.append(_at(draws[nonce], f"drawn{named} but no decision used it"))
    return out
