"""The economy: the Bank's limited stock, Town Technologies, Town Defense, production, capture."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from services.platform.errors import RuleViolation
from services.rules.land.data import economy
from services.rules.land.victory import clamp_track


def _frozen(d: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Bank:
    """The Bank: Technology chips per type and Defense chips for sale (None = unlimited)."""

    techs: Mapping[str, int] | None = None
    defense: int | None = None


@dataclass(frozen=True)
class Town:
    """A player's town: salvage, tracks, Technologies (type -> tier), TD chips, resources owned."""

    salvage: int
    prestige: int
    town_health: int
    techs: Mapping[str, int] = field(default_factory=lambda: _frozen({}))
    defense: int = 0
    resources: tuple[str, ...] = ()
    resource_defense: Mapping[str, int] = field(default_factory=lambda: _frozen({}))


def open_bank(tech_stock: int | None, defense_supply: int | None) -> Bank:
    """Return the Bank at setup: tech_stock of each type (None = unlimited) and the TD supply."""
    if tech_stock is None:
        return Bank(None, defense_supply)
    return Bank(_frozen({t: tech_stock for t in economy()["techs"]}), defense_supply)


def adjust(town: Town, salvage: int = 0, prestige: int = 0, town_health: int = 0) -> Town:
    """Return the town with salvage (never below 0) and tracks (clamped) moved."""
    return replace(
        town,
        salvage=max(0, town.salvage + salvage),
        prestige=clamp_track("prestige", town.prestige + prestige),
        town_health=clamp_track("town_health", town.town_health + town_health),
    )


def _pay(town: Town, price: int) -> Town:
    if town.salvage < price:
        raise RuleViolation(f"needs {price} Salvage Coins, has {town.salvage}")
    return replace(town, salvage=town.salvage - price)


def _take(bank: Bank, tech: str) -> Bank:
    if bank.techs is None:
        return bank
    if bank.techs.get(tech, 0) < 1:
        raise RuleViolation(f"the Bank has no {tech} left")
    return replace(bank, techs=_frozen({**bank.techs, tech: bank.techs[tech] - 1}))


def _give(bank: Bank, tech: str) -> Bank:
    if bank.techs is None:
        return bank
    return replace(bank, techs=_frozen({**bank.techs, tech: bank.techs[tech] + 1}))


def buy_tech(town: Town, bank: Bank, tech: str) -> tuple[Town, Bank]:
    """Return town and Bank after buying a tier-1 Technology for 30 (+2 Town Health)."""
    eco = economy()
    if tech not in eco["techs"]:
        raise RuleViolation(f"unknown Town Technology {tech[:32]!r}")
    if tech in town.techs:
        raise RuleViolation(f"already owns {tech}")
    bank = _take(bank, tech)
    town = _pay(town, int(eco["tech_price"]))
    town = replace(town, techs=_frozen({**town.techs, tech: 1}))
    return adjust(town, town_health=int(eco["tech_town_health"])), bank


def upgrade_tech(town: Town, tech: str) -> Town:
    """Return the town after upgrading a tier-1 Technology to tier 2 for 30 (+2 Town Health)."""
    eco = economy()
    if town.techs.get(tech) != 1:
        raise RuleViolation(f"no tier-1 {tech[:32]} to upgrade")
    town = _pay(town, int(eco["tech_upgrade_price"]))
    town = replace(town, techs=_frozen({**town.techs, tech: 2}))
    return adjust(town, town_health=int(eco["tech_town_health"]))


def upgrade_from_bank(town: Town, bank: Bank, tech: str) -> tuple[Town, Bank]:
    """Return town and Bank after an upgrade that takes a second chip (Harsh Reality Mod. 1)."""
    town = upgrade_tech(town, tech)
    return town, _take(bank, tech)


def sell_tech(town: Town, bank: Bank, tech: str, per_tier: bool = False) -> tuple[Town, Bank]:
    """Return town and Bank after selling a Technology (25 per tier); the chip(s) return."""
    eco = economy()
    tier = town.techs.get(tech)
    if not tier:
        raise RuleViolation(f"does not own {tech[:32]}")
    techs = {t: n for t, n in town.techs.items() if t != tech}
    town = replace(
        town, techs=_frozen(techs), salvage=town.salvage + tier * int(eco["tech_sell_price"])
    )
    for _ in range(tier if per_tier else 1):
        bank = _give(bank, tech)
    return adjust(town, town_health=-tier * int(eco["tech_town_health"])), bank


def defense_price(held: int) -> int:
    """Return the price of the next Town Defense chip for a player holding `held` (10 ... 30)."""
    prices = economy()["defense_prices"]
    if held >= int(economy()["defense_max"]):
        raise RuleViolation("already holds the most Town Defense chips")
    return int(prices[held])


def buy_defense(town: Town, bank: Bank) -> tuple[Town, Bank]:
    """Return town and Bank after buying one Town Defense chip (the Epic supply can run out)."""
    if bank.defense is not None and bank.defense < 1:
        raise RuleViolation("the Bank has no Town Defense chips left")
    held = town.defense + sum(town.resource_defense.values())
    town = _pay(town, defense_price(held))
    bank = bank if bank.defense is None else replace(bank, defense=bank.defense - 1)
    return replace(town, defense=town.defense + 1), bank


def _return_defense(town: Town, bank: Bank) -> tuple[Town, Bank]:
    if town.defense < 1:
        raise RuleViolation("no Town Defense chip in town")
    bank = bank if bank.defense is None else replace(bank, defense=bank.defense + 1)
    return replace(town, defense=town.defense - 1), bank


def sell_defense(town: Town, bank: Bank) -> tuple[Town, Bank]:
    """Return town and Bank after selling a Town Defense chip for 5; it returns to the Bank."""
    town, bank = _return_defense(town, bank)
    return replace(town, salvage=town.salvage + int(economy()["defense_sell_price"])), bank


def convert_defense(town: Town, bank: Bank) -> tuple[Town, Bank]:
    """Return town and Bank after converting a Town Defense chip into +3 Town Health."""
    town, bank = _return_defense(town, bank)
    return adjust(town, town_health=int(economy()["defense_convert_town_health"])), bank


def place_defense(town: Town, resource: str) -> Town:
    """Return the town after moving one of its TD chips onto a resource it owns."""
    if resource not in town.resources:
        raise RuleViolation(f"does not own {resource[:32]}")
    if town.defense < 1:
        raise RuleViolation("no Town Defense chip in town to place")
    rd = {**town.resource_defense, resource: town.resource_defense.get(resource, 0) + 1}
    return replace(town, defense=town.defense - 1, resource_defense=_frozen(rd))


def town_attack(town: Town, damage: int) -> tuple[Town, int]:
    """Return the town after an attack on it and the Town Health lost (1 less per TD chip)."""
    lost = max(0, damage - town.defense)
    before = town.town_health
    town = adjust(town, town_health=-lost)
    return town, before - town.town_health


def claim_resource(town: Town, resource: str) -> Town:
    """Return the town owning one more resource (+1 Prestige); at most 5."""
    eco = economy()
    if resource in town.resources:
        raise RuleViolation(f"already owns {resource[:32]}")
    if len(town.resources) >= int(eco["resource_max"]):
        raise RuleViolation("already owns the most resources")
    town = replace(town, resources=(*town.resources, resource))
    return adjust(town, prestige=int(eco["resource_prestige"]))


def lose_resource(town: Town, resource: str) -> Town:
    """Return the town without a resource (-1 Prestige; its TD chips there are lost to the Bank)."""
    if resource not in town.resources:
        raise RuleViolation(f"does not own {resource[:32]}")
    rd = {r: n for r, n in town.resource_defense.items() if r != resource}
    town = replace(
        town,
        resources=tuple(r for r in town.resources if r != resource),
        resource_defense=_frozen(rd),
    )
    return adjust(town, prestige=-int(economy()["resource_prestige"]))


def capture_requirement(defense_on_it: int) -> int:
    """Return the Combat successes needed to capture an owned resource: 3 + 2 per TD chip on it."""
    eco = economy()
    return int(eco["capture_base"]) + int(eco["capture_per_defense"]) * defense_on_it


def production(yields: Mapping[str, int | str]) -> tuple[dict[str, int], list[str]]:
    """Return one resource's production: deltas and the decks to draw a card from."""
    deltas = {k: int(v) for k, v in yields.items() if k in ("salvage", "town_health", "prestige")}
    draws = [str(v) for k, v in yields.items() if k == "draw"]
    return deltas, draws
