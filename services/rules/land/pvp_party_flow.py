"""Solo Variant II PVP option 2 as tasks: an opposing faction's PVP Party forms, fights, leaves.

docs/games/land.md 1.7. The party plays as the seat `of<N>` (its faction's key): its crowns,
gear, vehicle and load are ordinary zones, so the core PVP Deed (pvp_flow.py) fights it. The
choices the rulebook leaves to the opposing faction follow one fixed policy, noted in the log.
"""

from __future__ import annotations

from services.rules.land.data import DAMAGE_TYPES, factions
from services.rules.land.flow import Args, Ctx, task
from services.rules.land.oftec import opposing_id
from services.rules.land.party import CROWNS
from services.rules.land.pvp_party import equip_party, party_size, party_spoils
from services.rules.land.state import pos

PLAYER = "p1"
PARTIES = "pvp_parties"  # the opposing factions (1d10 numbers) with a PVP Party, first first


def _muster(of: str, what: str) -> str:
    return f"play.{of}.{what}"


@task("pvp2_form")
def _form(ctx: Ctx, a: Args) -> None:
    # "2nd: Draw and attach 5 Characters to it. Then Draw 12 Spoils cards +1 for every 10 Town
    # Health that Faction has, rounded down."
    f = int(a["faction"])
    of = opposing_id(f)
    n_chars = party_size()[0]
    n_spoils = party_spoils(ctx.state.count(f"th.{of}"))
    ctx.note("pvp_party_forming", faction=f, characters=n_chars, spoils=n_spoils)
    ctx.push(
        ("draw", {"seat": "", "deck": "characters", "n": n_chars, "zone": _muster(of, "chars")}),
        ("draw", {"seat": "", "deck": "spoils", "n": n_spoils, "zone": _muster(of, "spoils")}),
        ("pvp2_equip", {"faction": f}),
    )


@task("pvp2_equip")
def _equip(ctx: Ctx, a: Args) -> None:
    # "3rd: Check for proper Carrying Capacity and equip all linked items to the proper
    # Characters." The policy is pvp_party.equip_party's.
    f = int(a["faction"])
    of = opposing_id(f)
    chars, spoils = _muster(of, "chars"), _muster(of, "spoils")
    kit = equip_party(ctx.state.zone(chars), ctx.state.zone(spoils))
    for k, ch in kit.crowns.items():
        ctx.move(ch, chars, f"crown.{of}.{k}")
        for g in kit.gear.get(k, ()):
            ctx.move(g, spoils, f"gear.{of}.{k}")
    if kit.vehicle is not None:
        ctx.move(kit.vehicle, spoils, f"vehicle.{of}")
    for g in kit.load:
        ctx.move(g, spoils, f"load.{of}")
    for g in kit.left:
        ctx.move(g, spoils, "discard.spoils")
    # "1st: Match the Town Faction Chip up with that Faction's Town Play Mat." Where the party
    # enters is not written: like option 1's NPCM it enters at the player's Party location, and
    # it regroups at its faction's starting town.
    at = list(pos(ctx.state, PLAYER))
    ctx.setv(f"pos.{of}", at)
    ctx.setv(f"home.{of}", list(factions()[f]["at"]))
    ctx.setv(PARTIES, [*ctx.state.var(PARTIES, []), f])
    ctx.note(
        "pvp_party_entered",
        faction=f,
        at=at,
        crowns={str(k): [ch, *kit.gear.get(k, ())] for k, ch in kit.crowns.items()},
        vehicle=kit.vehicle,
        load=list(kit.load),
        discarded=list(kit.left),
        policy="linked_first_then_least_loaded",
    )


@task("pvp_parties_act")
def _act(ctx: Ctx, a: Args) -> None:
    # "4th: The PVP Party always attacks and will utilize First Strikes they have available":
    # each party in play, the first rolled first, attacks the player's party with a PVP Deed
    # (first strikes, the PVP window, the Combat checks), then leaves play.
    tasks: list[tuple[str, Args]] = []
    for f in ctx.state.var(PARTIES, []):
        of = opposing_id(int(f))
        tasks += [("pvp", {"seat": of, "target": PLAYER}), ("pvp2_leave", {"faction": f})]
    ctx.push(*tasks)


@task("pvp2_leave")
def _leave(ctx: Ctx, a: Args) -> None:
    """The party leaves play after its fight: its cards go to the discard piles."""
    f = int(a["faction"])
    of = opposing_id(f)
    for k in CROWNS:
        for g in ctx.state.zone(f"gear.{of}.{k}"):
            ctx.move(g, f"gear.{of}.{k}", "discard.spoils")
        for ch in ctx.state.zone(f"crown.{of}.{k}"):
            ctx.move(ch, f"crown.{of}.{k}", "discard.characters")
        for t in DAMAGE_TYPES:
            if ctx.state.count(f"dmg.{of}.{k}.{t}"):
                ctx.set_to(f"dmg.{of}.{k}.{t}", 0, "left play")
    for z in (f"vehicle.{of}", f"load.{of}", f"auction.{of}"):
        for g in ctx.state.zone(z):
            ctx.move(g, z, "discard.spoils")
    ctx.setv(PARTIES, [x for x in ctx.state.var(PARTIES, []) if int(x) != f])
    ctx.note("pvp_party_left", faction=f)
