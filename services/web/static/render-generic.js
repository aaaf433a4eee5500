// Board renderers per game kind. services/web/static/render-<game>.js registers
// window.Renderers[game] = (view, ctx) => HTMLElement, ctx = {seat, lastDice, verified, cards,
// data, info} (cards: the game's card names and texts from /api/cards/<game>/<version>),
// and may register window.PublicDice[game] = (replayStep) => {nonce, dice: [{kind, face}]}
// | null so spectators' replays verify that game's public rolls. app.js loads the file the
// first time a game of that kind is shown; a game without one gets the generic board.
"use strict";

window.Renderers = window.Renderers || {};

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v; // the CSSOM: a style attribute breaks the CSP
    else node.setAttribute(k, v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A card's entry in the card data ("shotgun#2" is a copy of "shotgun").
function cardOf(ctx, id) {
  const cards = (ctx && ctx.cards) || {};
  return cards[id] || cards[String(id).split("#")[0]] || null;
}

function cardName(ctx, id) {
  const c = cardOf(ctx, id);
  return c ? c.name : "unknown card";
}

// One card as a focusable chip: its name, and its text on hover or focus.
function cardChip(ctx, id, extra) {
  const c = cardOf(ctx, id);
  const name = c ? c.name : "unknown card";
  const text = c ? c.text || c.type : "";
  return el("span", { class: "card", tabindex: "0", title: text, "aria-label": text ? `${name}: ${text}` : name, "data-card": id, ...(extra || {}) }, name);
}

function cardList(ctx, cards) {
  if (Array.isArray(cards)) {
    if (!cards.length) return el("span", { class: "muted" }, "none");
    const out = el("span", { class: "cards" });
    cards.forEach((id) => out.append(cardChip(ctx, id)));
    return out;
  }
  if (cards && typeof cards === "object" && "count" in cards) return el("span", { class: "muted" }, `${cards.count} hidden`);
  return el("span", { class: "muted" }, "none");
}

function zoneText(cards) {
  if (Array.isArray(cards)) return cards.length ? `${cards.length} cards` : "—";
  if (cards && typeof cards === "object" && "count" in cards) return `${cards.count} hidden`;
  return "—";
}

const words = (s) => String(s || "").replace(/_/g, " ");

function renderGeneric(view, ctx) {
  const root = el("div", { class: "board" });
  const counters = el("section", { class: "panel" }, el("h3", {}, "Counters"));
  for (const [k, v] of Object.entries(view.counters || {})) counters.append(el("div", {}, `${words(k)}: ${v}`));
  const zones = el("section", { class: "panel" }, el("h3", {}, "Zones"));
  for (const [k, v] of Object.entries(view.zones || {})) zones.append(el("div", {}, `${words(k)}: `, cardList(ctx, v)));
  root.append(counters, zones);
  return root;
}

window.Renderers.generic = renderGeneric;
window.UI = { el, zoneText, cardOf, cardName, cardChip, cardList, words };
