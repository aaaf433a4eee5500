// Fallen Worlds' board: both Capitals, each side's creatures in play (Hp, damage,
// attachments), hand size, library count, resources, phase and whose turn.
"use strict";

(function () {
  const { el, cardChip, cardList, words } = window.UI;
  const seatName = (s) => (/^p\d+$/.test(s || "") ? `Player ${s.slice(1)}` : words(s));

  function unit(c, ctx, turn) {
    const s = c.stats || {};
    const hp = s.hp ?? 0;
    const left = Math.max(0, hp - (c.damage || 0));
    const flags = [c.locked ? "locked" : "", c.fresh ? "fresh" : "", (turn.attackers || []).includes(c.uid) ? "attacking" : ""].filter(Boolean);
    const bar = el("div", { class: "hp", role: "meter", "aria-valuemin": "0", "aria-valuemax": String(hp), "aria-valuenow": String(left), "aria-label": "health left" },
      el("span", { style: `width:${hp ? Math.round((100 * left) / hp) : 0}%` }));
    return el("div", { class: `unit${c.locked ? " exhausted" : ""}`, "data-uid": c.uid },
      cardChip(ctx, c.card),
      el("div", { class: "muted" }, `ATK ${s.atk ?? "?"} · DEF ${s.def ?? "?"} · DMG ${s.dmg ?? "?"}`),
      el("div", {}, `Hp ${left}/${hp}${c.damage ? ` (damage ${c.damage})` : ""}`), bar,
      (c.attached || []).length ? el("div", {}, "attached: ", cardList(ctx, c.attached)) : null,
      flags.length ? el("div", { class: "muted" }, flags.join(" · ")) : null);
  }

  function side(view, seat, ctx) {
    const s = (view.sides || {})[seat] || {};
    const turn = view.turn || {};
    const mine = (view.play || []).filter((c) => c.owner === seat);
    const active = turn.active === seat;
    const units = el("div", { class: "units" }, ...(mine.length ? mine.map((c) => unit(c, ctx, turn)) : [el("div", { class: "muted" }, "nothing in play")]));
    return el("section", { class: `panel wide${active ? " active" : ""}`, "data-seat": seat },
      el("h3", {}, `${seatName(seat)}${active ? " · their turn" : ""}${view.winner === seat ? " · winner" : ""}`),
      el("div", { class: "counters" },
        el("span", { class: "capital" }, `Capital ${s.capital ?? "?"}`),
        el("span", {}, `Resources ${s.pool ?? 0}`),
        el("span", {}, `Hand ${Array.isArray(s.hand) ? s.hand.length : s.hand ?? 0}`),
        el("span", {}, `Library ${s.library ?? 0}`),
        el("span", {}, `Graveyard ${(s.graveyard || []).length}`)),
      Array.isArray(s.hand) ? el("div", {}, "Hand: ", cardList(ctx, s.hand)) : null,
      units,
      (s.graveyard || []).length ? el("details", {}, el("summary", {}, "graveyard"), cardList(ctx, s.graveyard)) : null);
  }

  window.Renderers.worlds = function renderWorlds(view, ctx) {
    const board = el("div", { class: "board", "data-game": "worlds" });
    const turn = view.turn || {};
    const p = view.pending;
    const seats = Object.keys(view.sides || {}).sort();
    board.append(el("section", { class: "panel wide", id: "phase" },
      el("h3", {}, `Turn ${turn.number ?? 0} · ${seatName(turn.active)} · ${words(turn.phase || "")} phase`),
      view.winner ? el("div", { class: "status ended", id: "winner" }, `Winner: ${seatName(view.winner)}`) : null,
      p ? el("div", {}, `Waiting for ${seatName(p.seat)}: ${words(p.prompt || p.kind)}`) : null));
    for (const seat of seats) board.append(side(view, seat, ctx));
    return board;
  };
})();
