// Fallen Land's board: the hex map (terrain, numbered hexes, towns, Resource Locations,
// Missions, parties, NPCMs) and each faction's Town Health, Prestige, coins, Town
// Technologies, Characters and Spoils; in solo, the opposing factions and the OFTEC.
"use strict";

(function () {
  const { el, cardChip, cardList, words } = window.UI;
  const SVG = "http://www.w3.org/2000/svg";
  const COLOURS = ["#e6554a", "#4a9be6", "#e6c84a", "#9b59d0", "#4ad0a0", "#f08a3c"];
  const TERRAIN = { mountain: "#7b6a55", city: "#8f9196", rad: "#8aa52b", plains: "#5f7a3a" };
  const seatName = (s) => (/^p\d+$/.test(s || "") ? `Player ${s.slice(1)}` : words(s));
  const R = 12;
  const H = Math.sqrt(3) * R;

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }

  function centre(map, x, y) {
    return [R + x * 1.5 * R, (map.height - 1 - y) * H + (x % 2 ? 0 : H / 2) + H / 2];
  }

  function hexPoints(cx, cy) {
    const pts = [];
    for (let i = 0; i < 6; i++) {
      const a = (Math.PI / 3) * i;
      pts.push(`${(cx + R * Math.cos(a)).toFixed(1)},${(cy + R * Math.sin(a)).toFixed(1)}`);
    }
    return pts.join(" ");
  }

  function terrainColour(kinds) {
    if (kinds.includes("city") && kinds.includes("rad")) return "#a0a05a";
    if (kinds.includes("mountain") && kinds.includes("rad")) return "#7d8a3c";
    for (const k of ["city", "mountain", "rad", "plains"]) if (kinds.includes(k)) return TERRAIN[k];
    return "#444";
  }

  function hexMap(view, ctx) {
    const data = ctx.data || {};
    const map = data.map;
    if (!map) return el("div", { class: "muted" }, "map data unavailable");
    const vars = view.vars || {};
    const players = view.players || vars.players || [];
    const width = R * (1.5 * (map.width - 1) + 2);
    const height = H * (map.height + 0.5);
    const root = svg("svg", { viewBox: `0 0 ${width.toFixed(0)} ${height.toFixed(0)}`, class: "hexmap", role: "img", "aria-labelledby": "map-title map-desc" });
    const parts = [];
    const g = svg("g", {});
    const numberAt = {};
    for (const [n, [x, y]] of Object.entries(map.numbered || {})) numberAt[`${x},${y}`] = n;
    for (const [x, y, kinds] of map.terrain) {
      const [cx, cy] = centre(map, x, y);
      g.append(svg("polygon", { points: hexPoints(cx, cy), fill: terrainColour(kinds), stroke: "#2a2a2a", "stroke-width": "0.6" }));
      const n = numberAt[`${x},${y}`];
      if (n) g.append(svg("text", { x: cx, y: cy + 2.5, class: "hexnum", "text-anchor": "middle" }, n));
    }
    root.append(svg("title", { id: "map-title" }, "Fallen Land map"), g);
    // towns of the faction chart; the players' own towns in their colour
    const homeOf = {};
    players.forEach((p, i) => { if (vars[`faction.${p}`]) homeOf[vars[`faction.${p}`]] = i; });
    for (const [roll, f] of Object.entries(data.factions || {})) {
      const [cx, cy] = centre(map, f.at[0], f.at[1]);
      const owner = homeOf[roll];
      const opposing = (vars.opposing || []).map(String).includes(roll);
      const fill = owner !== undefined ? COLOURS[owner % COLOURS.length] : opposing ? "#222" : "#ddd";
      root.append(svg("rect", { x: cx - 6, y: cy - 6, width: 12, height: 12, fill, stroke: "#000", class: "town", "data-faction": roll }, svg("title", {}, `${f.town}: ${f.name}${owner !== undefined ? ` (${seatName(players[owner])})` : opposing ? " (opposing faction)" : ""}`)));
      parts.push(`town ${f.town}`);
    }
    for (const [id, r] of Object.entries(map.resources || {})) {
      const [cx, cy] = centre(map, r.at[0], r.at[1]);
      const owner = (vars.resources || {})[id];
      const i = players.indexOf(owner);
      root.append(svg("polygon", { points: `${cx},${cy - 7} ${cx + 7},${cy} ${cx},${cy + 7} ${cx - 7},${cy}`, fill: i >= 0 ? COLOURS[i % COLOURS.length] : "#f3c76b", stroke: "#000", class: "resource", "data-resource": id },
        svg("title", {}, `Resource Location ${r.name}${owner ? `, held by ${seatName(owner)}` : ""}`)));
    }
    for (const n of vars.missions || []) {
      const at = (map.numbered || {})[String(n)];
      if (!at) continue;
      const [cx, cy] = centre(map, at[0], at[1]);
      root.append(svg("circle", { cx, cy, r: 8, fill: "none", stroke: "#fff", "stroke-width": "1.6", "stroke-dasharray": "2 1.5", class: "mission" }, svg("title", {}, `Mission on hex ${n}`)));
    }
    for (const npcm of vars.npcms || []) {
      if (!npcm.at) continue;
      const [cx, cy] = centre(map, npcm.at[0], npcm.at[1]);
      root.append(svg("polygon", { points: `${cx},${cy - 6} ${cx + 6},${cy + 5} ${cx - 6},${cy + 5}`, fill: "#111", stroke: "#ff6b6b", "stroke-width": "1.2", class: "npcm" },
        svg("title", {}, `${(ctx.cards[npcm.card] || {}).name || "NPCM"} hired by ${seatName(npcm.hirer)} against ${seatName(npcm.target)}`)));
    }
    players.forEach((p, i) => {
      const pos = vars[`pos.${p}`];
      if (!pos) return;
      const [cx, cy] = centre(map, pos[0], pos[1]);
      root.append(svg("g", { class: "party", "data-seat": p },
        svg("circle", { cx, cy, r: 6.5, fill: COLOURS[i % COLOURS.length], stroke: "#000", "stroke-width": "1.2" }),
        svg("text", { x: cx, y: cy + 3, "text-anchor": "middle", class: "partylabel" }, p.slice(1)),
        svg("title", {}, `${seatName(p)}'s party at hex (${pos[0]}, ${pos[1]})`)));
      parts.push(`${seatName(p)}'s party at (${pos[0]}, ${pos[1]})`);
    });
    root.append(svg("desc", { id: "map-desc" }, `Hex map: ${(vars.missions || []).length} Missions, ${Object.keys(vars.resources || {}).length} Resource Locations held; ${parts.filter((s) => s.includes("party")).join("; ")}`));
    const legend = el("div", { class: "legend muted" }, "■ town · ◆ Resource Location · ◌ Mission · ▲ NPCM · ● party (number = player)");
    return el("section", { class: "panel wide", id: "map" }, el("h3", {}, "Map"), el("div", { class: "mapbox" }, root), legend);
  }

  function faction(view, p, i, ctx) {
    const c = view.counters || {};
    const z = view.zones || {};
    const vars = view.vars || {};
    const f = (ctx.data.factions || {})[String(vars[`faction.${p}`])];
    const techs = Object.entries(c).filter(([k, v]) => k.startsWith(`tech.${p}.`) && v > 0)
      .map(([k, v]) => `${(ctx.data.techs || {})[k.split(".")[2]] || words(k.split(".")[2])}${v > 1 ? ` (tier ${v})` : ""}`);
    const chars = el("div", { class: "chars" });
    for (let k = 1; k <= 6; k++) {
      const crown = z[`crown.${p}.${k}`];
      if (!Array.isArray(crown) || !crown.length) continue;
      const dmg = Object.entries(c).filter(([key, v]) => key.startsWith(`dmg.${p}.${k}.`) && v > 0).map(([key, v]) => `${v} ${key.split(".")[3]}`);
      chars.append(el("div", { class: "char" }, cardChip(ctx, crown[0]),
        dmg.length ? el("span", { class: "bad" }, ` damage ${dmg.join(", ")}`) : null,
        (z[`gear.${p}.${k}`] || []).length ? el("div", { class: "muted" }, "spoils: ", cardList(ctx, z[`gear.${p}.${k}`])) : null));
    }
    const colour = COLOURS[i % COLOURS.length];
    return el("section", { class: "panel", "data-seat": p },
      el("h3", {}, el("span", { class: "swatch", style: `background:${colour}`, "aria-hidden": "true" }), ` ${seatName(p)}: ${f ? `${f.name} (${f.town})` : "faction not rolled yet"}`),
      el("div", { class: "counters" },
        el("span", { class: "th" }, `Town Health ${c[`th.${p}`] ?? 0}`),
        el("span", {}, `Prestige ${c[`prestige.${p}`] ?? 0}`),
        el("span", {}, `Coins ${c[`salvage.${p}`] ?? 0}`),
        el("span", {}, `Defense ${c[`defense.${p}`] ?? 0}`),
        el("span", {}, `Weeks ${c[`weeks.${p}`] ?? 0}`)),
      el("div", {}, `Town Technologies: ${techs.join(", ") || "none"}`),
      el("div", {}, "Characters:"), chars,
      z[`vehicle.${p}`] ? el("div", {}, "Vehicle: ", cardList(ctx, z[`vehicle.${p}`])) : null,
      z[`hand.${p}`] ? el("div", {}, "Action hand: ", cardList(ctx, z[`hand.${p}`])) : null,
      (z[`npcm.${p}`] || []).length ? el("div", {}, "NPCMs hired: ", cardList(ctx, z[`npcm.${p}`])) : null);
  }

  function opposing(view, ctx) {
    const c = view.counters || {};
    const z = view.zones || {};
    const vars = view.vars || {};
    const rolls = vars.opposing || [];
    if (!rolls.length) return null;
    const panel = el("section", { class: "panel", id: "opposing" }, el("h3", {}, "Opposing factions (OFTEC)"));
    for (const roll of rolls) {
      const f = (ctx.data.factions || {})[String(roll)] || {};
      panel.append(el("div", { "data-faction": String(roll) },
        el("strong", {}, f.name || `faction ${roll}`), ` (${f.town || "?"}) · Town Health ${c[`th.of${roll}`] ?? 0} · Prestige ${c[`prestige.of${roll}`] ?? 0}`,
        (z[`play.of${roll}`] || []).length ? el("div", { class: "muted" }, "in play: ", cardList(ctx, z[`play.of${roll}`])) : null));
    }
    if ((vars.oftec_lost || []).length) panel.append(el("div", { class: "muted" }, `OFTEC rolls lost: ${vars.oftec_lost.join(", ")}`));
    return panel;
  }

  window.Renderers.land = function renderLand(view, ctx) {
    const vars = view.vars || {};
    const c = view.counters || {};
    const players = view.players || vars.players || [];
    const board = el("div", { class: "board", "data-game": "land" });
    const p = view.pending;
    const result = vars.result;
    const opts = vars.options || {};
    board.append(el("section", { class: "panel wide", id: "phase" },
      el("h3", {}, `Turn ${c.turn ?? 0} · ${words(view.phase || "")} · ${words(opts.variant || "standard")}${opts.challenge ? ` challenge ${opts.challenge}` : ""}`),
      result ? el("div", { class: "status ended", id: "winner" }, `Result: ${(result.winners || []).map(seatName).join(", ") || "no winner"} (${words(result.kind)})`) : null,
      p ? el("div", {}, `Waiting for ${seatName(p.seat)}: ${words(p.prompt || p.kind)}`) : null,
      el("div", { class: "muted" }, "Auction: ", ...players.map((s) => (view.zones || {})[`auction.${s}`] ? el("span", {}, `${seatName(s)} `, cardList(ctx, view.zones[`auction.${s}`]), " ") : null),
        (view.zones || {})["auction.bank"] ? cardList(ctx, view.zones["auction.bank"]) : null)));
    board.append(hexMap(view, ctx));
    players.forEach((s, i) => board.append(faction(view, s, i, ctx)));
    const opp = opposing(view, ctx);
    if (opp) board.append(opp);
    return board;
  };
})();
