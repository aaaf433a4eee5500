// Board renderers per game kind. services/web/static/render-<game>.js registers
// window.Renderers[game] = (view, ctx) => HTMLElement, ctx = {seat, lastDice, verified},
// and may register window.PublicDice[game] = (replayStep) => {nonce, dice: [{kind, face}]}
// | null so spectators' replays verify that game's public rolls. app.js loads the file the
// first time a game of that kind is shown (Worlds: render-worlds.js, Land: render-land.js);
// a game without one is drawn by the generic renderer below.
"use strict";

window.Renderers = window.Renderers || {};

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function zoneText(cards) {
  if (Array.isArray(cards)) return cards.length ? cards.join(", ") : "—";
  if (cards && typeof cards === "object" && "count" in cards) return `${cards.count} hidden`;
  return JSON.stringify(cards);
}

function renderGeneric(view) {
  const root = el("div", { class: "board" });
  const counters = el("div", { class: "panel" }, el("h3", {}, "Counters"));
  for (const [k, v] of Object.entries(view.counters || {})) counters.append(el("div", {}, `${k}: ${v}`));
  const zones = el("div", { class: "panel" }, el("h3", {}, "Zones"));
  for (const [k, v] of Object.entries(view.zones || {})) zones.append(el("div", {}, `${k}: ${zoneText(v)}`));
  root.append(counters, zones, el("div", { class: "panel" }, el("h3", {}, "View"), el("pre", {}, JSON.stringify(view, null, 1))));
  return root;
}

window.Renderers.generic = renderGeneric;
window.UI = { el, zoneText };
