// Fallen's board: Hero, Dungeon Lord, the Creature slots, the Shadow Track and the dice.
"use strict";

(function () {
  const { el, zoneText } = window.UI;
  const SEAT_NAMES = { hero: "Hero", dungeon_lord: "Dungeon Lord" };
  const pretty = (id) => (id || "—").replace(/^(cr|sh|hp|dp|eq|tr|sk|tok)_/, "").replace(/_/g, " ");

  function side(view, seat) {
    const c = view.counters || {};
    const z = view.zones || {};
    const who = (view.characters || {})[seat];
    const stats = el("div", { class: "counters" },
      el("span", {}, `Fortune ${c[`fortune.${seat}`] ?? 0}`),
      el("span", {}, `Charges ${c[`charges.${seat}`] ?? 0}`),
      el("span", {}, `XP ${c[`xp.${seat}`] ?? 0}`),
      seat === "hero" ? el("span", {}, `Wounds ${c["wounds.hero"] ?? 0}`) : null);
    const panel = el("div", { class: "panel", "data-seat": seat },
      el("h3", {}, `${SEAT_NAMES[seat]}: ${pretty(who)}`), stats,
      el("div", {}, `Hand: ${zoneText(z[`${seat}.hand`] ?? [])}`),
      el("div", {}, `Deck: ${zoneText(z[`${seat}.deck`] ?? [])}`));
    if (seat === "hero") {
      panel.append(el("div", {}, `Equipment: ${zoneText(z["hero.equipment"] ?? [])}`));
      panel.append(el("div", {}, `Skills: ${zoneText(z["hero.skills"] ?? [])}`));
    }
    return panel;
  }

  function slots(view) {
    const z = view.zones || {};
    const c = view.counters || {};
    const tired = new Set(view.exhausted || []);
    const row = el("div", { class: "slots" });
    const names = Object.keys(z).filter((k) => /^slot\.\d+$/.test(k)).sort();
    for (const name of names) {
      const n = name.split(".")[1];
      const cards = Array.isArray(z[name]) ? z[name] : [];
      const creature = cards[0];
      row.append(el("div", { class: `slot${creature && tired.has(creature) ? " exhausted" : ""}`, "data-slot": n },
        el("div", { class: "muted" }, `slot ${n}`),
        el("div", {}, creature ? pretty(creature) : "empty"),
        el("div", { class: "muted" }, `wounds ${c[`wounds.slot.${n}`] ?? 0}`),
        z[`augment.${n}`] ? el("div", { class: "muted" }, `+ ${zoneText(z[`augment.${n}`])}`) : null));
    }
    return el("div", { class: "panel", id: "creatures" }, el("h3", {}, "Creature slots"), row);
  }

  function shadow(view) {
    const track = (view.zones || {}).shadow_track;
    const pos = (view.counters || {}).shadow ?? 0;
    const cells = el("div", { class: "track" });
    (Array.isArray(track) ? track : []).forEach((card, i) =>
      cells.append(el("span", { class: `cell${i === pos ? " here" : ""}` }, pretty(card))));
    const light = view.light === undefined ? "" : view.light ? "Light" : "Darkness";
    return el("div", { class: "panel", id: "shadow-track" }, el("h3", {}, `Shadow Track ${light}`), cells);
  }

  function dice(ctx) {
    const panel = el("div", { class: "panel", id: "dice" }, el("h3", {}, "Last roll"));
    const roll = ctx.lastDice;
    if (!roll) { panel.append(el("div", { class: "muted" }, "no dice rolled yet")); return panel; }
    panel.append(el("div", { class: "muted" }, `${SEAT_NAMES[roll.seat] || roll.seat || ""} rolled (nonce ${roll.nonce})`));
    (roll.dice || []).forEach((colour, i) =>
      panel.append(el("span", { class: `die ${colour}` }, (roll.faces || [])[i] ?? "?")));
    const check = ctx.verified && ctx.verified.byNonce[roll.nonce];
    if (check) panel.append(el("div", { class: check.ok ? "ok" : "bad" }, check.ok ? "✓ verified against the revealed seed" : `✗ ${check.why}`));
    return panel;
  }

  // The dice of a public game event, for the page's fairness check: {nonce, dice: [{kind, face}]}.
  window.PublicDice = window.PublicDice || {};
  window.PublicDice.fallen = (step) => step.type === "dice_rolled" && typeof step.data.nonce === "number"
    ? { nonce: step.data.nonce, dice: (step.data.dice || []).map((c, i) => ({ kind: `fallen_${c}`, face: (step.data.faces || [])[i] })) }
    : null;

  window.Renderers.fallen = function renderFallen(view, ctx) {
    const board = el("div", { class: "board", "data-game": "fallen" });
    const phase = el("div", { class: "panel" }, el("h3", {}, `Phase: ${view.phase ?? "?"}`),
      view.winner ? el("div", { class: "status ended" }, `Winner: ${SEAT_NAMES[view.winner] || view.winner}`) : null,
      view.pending ? el("div", {}, `Waiting for ${SEAT_NAMES[view.pending.seat] || view.pending.seat}: ${view.pending.prompt || view.pending.kind}`) : null,
      view.story_card ? el("div", {}, `Story: ${pretty(view.story_card.id || "")}`) : null);
    board.append(side(view, "hero"), side(view, "dungeon_lord"), slots(view), shadow(view), dice(ctx), phase);
    return board;
  };
})();
