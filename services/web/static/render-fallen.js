// Fallen's board: Hero, Dungeon Lord, the four Creature slots, the Shadow Track, the
// challenge in progress and the dice. Names and texts come from the card data (ctx.cards).
"use strict";

(function () {
  const { el, cardChip, cardList, cardName, words } = window.UI;
  const SEAT_NAMES = { hero: "Hero", dungeon_lord: "Dungeon Lord" };

  function side(view, seat, ctx) {
    const c = view.counters || {};
    const z = view.zones || {};
    const who = (view.characters || {})[seat];
    const stats = el("div", { class: "counters" },
      el("span", {}, `Fortune ${c[`fortune.${seat}`] ?? 0}`),
      el("span", {}, `Charges ${c[`charges.${seat}`] ?? 0}`),
      el("span", {}, `XP ${c[`xp.${seat}`] ?? 0}`),
      seat === "hero" ? el("span", {}, `Wounds ${c["wounds.hero"] ?? 0}`) : null);
    const panel = el("section", { class: "panel", "data-seat": seat },
      el("h3", {}, `${SEAT_NAMES[seat]}: `, who ? cardChip(ctx, who) : "not chosen yet"), stats,
      el("div", {}, "Hand: ", cardList(ctx, z[`${seat}.hand`] ?? [])),
      el("div", {}, "Discard: ", cardList(ctx, z[`${seat}.discard`] ?? [])));
    if (seat === "hero") {
      panel.append(el("div", {}, "Equipment: ", cardList(ctx, z["hero.equipment"] ?? [])));
      panel.append(el("div", {}, "Skills: ", cardList(ctx, z["hero.skills"] ?? [])));
      if ((z["crit.hero"] || []).length) panel.append(el("div", {}, "Criticals: ", cardList(ctx, z["crit.hero"])));
    }
    return panel;
  }

  function slots(view, ctx) {
    const z = view.zones || {};
    const c = view.counters || {};
    const tired = new Set(view.exhausted || []);
    const row = el("div", { class: "slots" });
    for (let n = 0; n < 4; n++) {
      const cards = Array.isArray(z[`slot.${n}`]) ? z[`slot.${n}`] : [];
      const creature = cards[0];
      const active = (view.vars || {})["ch.slot"] === n;
      row.append(el("div", { class: `slot${creature && tired.has(creature) ? " exhausted" : ""}${active ? " active" : ""}`, "data-slot": String(n) },
        el("div", { class: "muted" }, `slot ${n + 1}${active ? " · in the challenge" : ""}`),
        creature ? cardChip(ctx, creature) : el("div", { class: "muted" }, "empty"),
        el("div", { class: "muted" }, `wounds ${c[`wounds.slot.${n}`] ?? 0}${creature && tired.has(creature) ? " · exhausted" : ""}`),
        (z[`augment.${n}`] || []).length ? el("div", {}, "augment: ", cardList(ctx, z[`augment.${n}`])) : null,
        (z[`curse.${n}`] || []).length ? el("div", {}, "curse: ", cardList(ctx, z[`curse.${n}`])) : null));
    }
    return el("section", { class: "panel wide", id: "creatures" }, el("h3", {}, "Creature slots"), row);
  }

  function shadow(view, ctx) {
    const track = (view.zones || {}).shadow_track;
    const pos = (view.counters || {}).shadow ?? 0;
    const cells = el("div", { class: "track", role: "list" });
    (Array.isArray(track) ? track : []).forEach((card, i) =>
      cells.append(el("span", { class: `cell${i === pos ? " here" : ""}`, role: "listitem", "aria-current": i === pos ? "true" : null }, cardName(ctx, card))));
    const light = view.light === undefined ? "" : view.light ? "· Light" : "· Darkness";
    return el("section", { class: "panel", id: "shadow-track" }, el("h3", {}, `Shadow Track ${light}`), cells);
  }

  function challenge(view) {
    const v = view.vars || {};
    const panel = el("section", { class: "panel", id: "challenge" }, el("h3", {}, "Challenge"));
    if (!v["ch.attribute"] && !v["ch.kind"]) { panel.append(el("div", { class: "muted" }, "no challenge in progress")); return panel; }
    panel.append(el("div", {}, `${words(v["ch.kind"] || "")} challenge · ${v["ch.attribute"] || ""}${v["ch.winner"] ? ` · won by ${SEAT_NAMES[v["ch.winner"]] || v["ch.winner"]}` : ""}`));
    for (const seat of ["hero", "dungeon_lord"]) {
      const dice = v[`ch.dice.${seat}`];
      if (!Array.isArray(dice) || !dice.length) continue;
      const row = el("div", {}, `${SEAT_NAMES[seat]}: `);
      dice.forEach((d) => row.append(el("span", { class: `die ${d[0]}`, title: `${d[0]} die` }, words(d[1]))));
      panel.append(row);
    }
    return panel;
  }

  function dice(ctx) {
    const panel = el("section", { class: "panel", id: "dice" }, el("h3", {}, "Last roll"));
    const roll = ctx.lastDice;
    if (!roll) { panel.append(el("div", { class: "muted" }, "no dice rolled yet")); return panel; }
    panel.append(el("div", { class: "muted" }, `${SEAT_NAMES[roll.seat] || roll.seat || ""} rolled (nonce ${roll.nonce})`));
    (roll.dice || []).forEach((colour, i) =>
      panel.append(el("span", { class: `die ${colour}`, title: `${colour} die` }, words((roll.faces || [])[i] ?? "?"))));
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
    const p = view.pending;
    const phase = el("section", { class: "panel", id: "phase" }, el("h3", {}, `Phase: ${words(view.phase ?? "?")}`),
      view.winner ? el("div", { class: "status ended", id: "winner" }, `Winner: ${SEAT_NAMES[view.winner] || view.winner}`) : null,
      p ? el("div", {}, `Waiting for ${SEAT_NAMES[p.seat] || p.seat}: ${words(p.prompt || p.kind)}`) : null);
    board.append(phase, side(view, "hero", ctx), side(view, "dungeon_lord", ctx), slots(view, ctx), shadow(view, ctx), challenge(view), dice(ctx));
    return board;
  };
})();
