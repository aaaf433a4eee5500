"""Hidden information as the rulebook has it (issue 12 item 7): the Quest and Story cards.

Card texts reach clients through the view's ``cards`` map, per what the seat may see.
"""

from __future__ import annotations

import json

from fallen_harness import Game

from services.rules.engine.api import NOBODY, PUBLIC, Setup
from services.rules.fallen import RULES
from services.rules.fallen.bot import heuristic
from services.rules.fallen.cards import catalog
from services.rules.fallen.state import DL, HERO, zone_seen_by
from services.rules.playout import play


def test_given_the_quest_stage_then_the_hero_reads_only_what_is_read_aloud() -> None:
    # "The Dungeon Lord reads the name of the Quest and the introduction section of the Quest
    # card aloud to the Hero ... reads aloud the names of the two choices in bold. Do not read
    # the content of each choice until after the Hero has made a selection." / "The Hero
    # selects one of the two choices without looking at the Quest card."
    # Given a game waiting for the Hero's Quest choice
    g = Game(dl="krogarn")
    assert g.pending_kind == "choose" and g.pending_seat == HERO
    full = catalog()["krogarn"]["quest"]
    # When each seat looks at the Dungeon Lord's Character card in its view
    hero_sees = RULES.view(g.state, HERO)["cards"]["krogarn"]["quest"]
    dl_sees = RULES.view(g.state, DL)["cards"]["krogarn"]["quest"]
    spectator_sees = RULES.view(g.state, None)["cards"]["krogarn"]["quest"]
    # Then the Hero (and a spectator) get the title, introduction and choice names only
    names = [{"name": c["name"]} for c in full["choices"]]
    assert hero_sees == {"title": full["title"], "intro": full["intro"], "choices": names}
    assert spectator_sees == hero_sees
    assert "Sneak Through the Larders" in json.dumps(hero_sees)
    assert full["choices"][0]["text"] not in json.dumps(RULES.view(g.state, HERO))
    # And the Dungeon Lord reads the whole card
    assert dl_sees == full
    # And once chosen, the chosen choice's text is told to both (the public quest_choice)
    g.do(HERO, "choose", choice=g.quest_choice)
    told = g.notes("quest_choice")[-1]
    assert told["text"] == full["choices"][0]["text"]


def _strings(obj: object) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(_strings(v) for v in obj.values()))
    if isinstance(obj, list | tuple):
        return set().union(*(_strings(v) for v in obj))
    return set()


def _hero_visible(events: list) -> list:  # type: ignore[type-arg]
    return [
        e
        for e in events
        if e.visibility == PUBLIC or (e.visibility != NOBODY and HERO in e.visibility)
    ]


def test_given_a_whole_game_then_no_story_text_reaches_the_hero_before_it_is_read() -> None:
    # "Through the Story card stage, the Hero is not allowed to look at the Story card." /
    # "Do not read the content of each choice until after the Hero has made a selection."
    # Given a whole game of the newest data, played by the heuristic bots
    seats = {HERO: "h", DL: "d"}
    bots = {HERO: heuristic, DL: heuristic}
    p = play(RULES, Setup(seats, RULES.new_game_options({})), "hidden-texts", "ht", bots)
    seen = _hero_visible(list(p.events))
    stories = catalog().of_type("story")
    drawn = [e.data["title"] for e in p.events if e.type == "story_begins"]
    chosen = {e.data["text"] for e in p.events if e.type == "story_choice"}
    # Then no Story card id ever reaches the Hero, but for the box's full list when the deck
    # service forms the Story deck at setup (every game holds all of them: it tells nothing)
    ids = {s["id"] for s in stories}
    assert not any(_strings(dict(e.data)) & ids not in (set(), ids) for e in seen)
    assert not any(
        e.type not in ("zone_set", "zones_set", "deck_changed", "flow")
        and _strings(dict(e.data)) & ids
        for e in seen
    )
    for story in stories:
        # and a title reaches the Hero first in the story_begins event that reads it aloud
        first = next(
            # a whole string value: "The Ossuary" is not "The Ossuary Choir"
            (i for i, e in enumerate(seen) if story["title"] in _strings(dict(e.data))),
            None,
        )
        if story["title"] not in drawn:
            assert first is None, story["id"]
            continue
        assert seen[first].type == "story_begins", (story["id"], seen[first].type)
        # and the text of a path not taken and of resolutions not reached never does
        for choice in story["choices"].values():
            if choice["text"] not in chosen:
                assert not any(choice["text"] in json.dumps(dict(e.data)) for e in seen)
    assert len(drawn) == 3


def test_given_any_view_then_it_serves_texts_only_for_cards_the_seat_may_see() -> None:
    # Given a finished game (cards in hands, discards, Story cards used, Skills learnt)
    p = play(RULES, Setup({HERO: "h", DL: "d"}, RULES.new_game_options({})), "texts", "tx", {})
    state = p.state
    for seat in (HERO, DL, None):
        view = RULES.view(state, seat)
        # Then every served card is one the seat can see where it lies
        for cid, text in view["cards"].items():
            zone = state.where(cid)
            if zone is not None:
                seen = zone_seen_by(zone)
                assert (seat in seen) if seat else len(seen) == 2, (seat, cid, zone)
            assert text["id"] == cid and (
                text.get("name") or text.get("title") or text.get("gives")
            )
        # and the Hero never gets a Story card's text
        if seat != DL:
            assert not any(t["type"] == "story" for t in view["cards"].values())


def test_given_the_heros_view_then_it_lists_the_texts_of_its_hand_not_the_dls() -> None:
    g = Game()
    g.do(HERO, "choose", choice=g.quest_choice)
    view = RULES.view(g.state, HERO)
    hand = g.zone("hero.hand")
    assert hand and all(view["cards"][c]["text"] for c in hand)
    assert not any(c in view["cards"] for c in g.zone("dungeon_lord.hand"))
