// The page: #/ lobby, #/live/<game>[?seat=s], #/replay/<game>[?seat=s].
"use strict";

(function () {
  const { el } = window.UI;
  const main = document.getElementById("main");
  const tokenInput = document.getElementById("token");
  tokenInput.value = localStorage.getItem("fallen-token") || "";
  tokenInput.addEventListener("change", () => { localStorage.setItem("fallen-token", tokenInput.value.trim()); route(); });
  let stopCurrent = () => {};

  function headers(extra) {
    const t = tokenInput.value.trim();
    return { ...(t ? { Authorization: `Bearer ${t}` } : {}), ...(extra || {}) };
  }

  async function getJSON(url, init) {
    const resp = await fetch(url, { ...(init || {}), headers: headers((init || {}).headers) });
    const text = await resp.text();
    let body;
    try { body = JSON.parse(text); } catch (e) { body = { error: text }; }
    if (!resp.ok) throw new Error(`${body.code || resp.status}: ${body.error || resp.statusText}`);
    return body;
  }
  const postJSON = (url, body) => getJSON(url, { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });

  function setState(state) { document.body.dataset.state = state; }

  // A game's board lives in /static/render-<game>.js (registering window.Renderers[game]
  // and, optionally, window.PublicDice[game]); it is loaded the first time that game is shown.
  const loading = {};
  function ensureRenderer(kind) {
    if (window.Renderers[kind] || !/^[a-z0-9_]+$/.test(kind)) return Promise.resolve();
    loading[kind] = loading[kind] || new Promise((resolve) => {
      const tag = document.createElement("script");
      tag.src = `/static/render-${kind}.js`;
      tag.onload = resolve;
      tag.onerror = resolve;  // no renderer yet: the generic board is used
      document.head.append(tag);
    });
    return loading[kind];
  }

  // Card names and texts come from the server's card data, per game and data version.
  const cardData = {};
  async function gameContext(gameId) {
    const info = await getJSON(`/api/games/${gameId}/info`);
    const key = `${info.game}/${info.card_data}`;
    cardData[key] = cardData[key] || await getJSON(`/api/cards/${key}`);
    await ensureRenderer(info.game);
    return { info, data: cardData[key] };
  }

  function render(kind, view, ctx) {
    const r = window.Renderers[kind] || window.Renderers.generic;
    return r(view, ctx);
  }

  function show(...nodes) { main.replaceChildren(...nodes); }

  function fail(err) { setState("error"); show(el("p", { class: "bad", id: "error", role: "alert" }, String(err.message || err))); }

  const button = (text, attrs, fn) => { const b = el("button", { type: "button", ...attrs }, text); b.addEventListener("click", fn); return b; };

  // --- live ---------------------------------------------------------------------------
  const diceOf = (kind) => (window.PublicDice || {})[kind] || (() => null);

  async function lastDiceSince(kind, gameId, seat, from, prev) {
    if (!(window.PublicDice || {})[kind]) return prev;
    const { events } = await getJSON(`/api/games/${gameId}/events?seat=${seat}&stream=game&from=${from}`);
    const rolls = events.filter((e) => diceOf(kind)(e));
    return rolls.length ? rolls[rolls.length - 1].data : prev;
  }

  // The seat's legal commands in words, one button each; a refusal shows its reason.
  function playPanel(gameId, seat) {
    const panel = el("section", { class: "panel", id: "play", "aria-live": "polite" }, el("h3", {}, `Your move (${seat})`));
    const list = el("div", { id: "commands", class: "commands" });
    const note = el("div", { id: "refusal", class: "bad", role: "alert" });
    panel.append(list, note);
    let busy = false;
    async function refresh() {
      if (busy) return;
      let legal;
      try { legal = await getJSON(`/api/games/${gameId}/legal?seat=${seat}`); } catch (err) { note.textContent = String(err.message || err); return; }
      list.dataset.version = String(legal.version);
      if (!legal.commands.length) {
        list.replaceChildren(el("div", { class: "muted", id: "waiting" }, legal.waiting_for ? `waiting for ${legal.waiting_for} (${legal.decision})` : "nothing to do"));
        return;
      }
      list.replaceChildren(el("div", { class: "muted" }, `${legal.decision}: choose one`),
        ...legal.commands.map((c, i) => button(c.text, { class: "command", "data-kind": c.kind, "data-i": String(i) }, async () => {
          busy = true;
          note.textContent = "";
          list.querySelectorAll("button").forEach((b) => { b.disabled = true; });
          try {
            await postJSON(`/api/games/${gameId}/commands`, { seat, kind: c.kind, args: c.args, command_id: crypto.randomUUID(), expected_version: legal.version });
          } catch (err) {
            note.textContent = `Refused: ${err.message || err}`;
            busy = false;
            await refresh();  // nothing changed: list the commands legal now again
            return;
          }
          busy = false;
          await refresh();  // the rules service answers at the new version at once
        })));
    }
    return { panel, refresh, note };
  }

  async function live(gameId, seat) {
    setState("live-connecting");
    const ctrl = new AbortController();
    const { info, data } = await gameContext(gameId);
    const kind = info.game;
    const title = el("h2", {}, `Live ${kind}: ${gameId}${seat ? ` as ${seat}` : " (spectator)"}`);
    const status = el("p", { id: "live-status", "aria-live": "polite" }, "connecting…");
    const boardBox = el("div", { id: "board" });
    const log = el("ol", { class: "events panel", id: "live-events", "aria-label": "latest events" });
    const play = seat && tokenInput.value.trim() ? playPanel(gameId, seat) : null;
    show(title, status, ...(play ? [play.panel] : []), boardBox, el("h3", {}, "Latest events"), log);
    const ctx = { seat, lastDice: null, verified: null, cards: data.cards, data, info };
    let seen = 0;
    (async () => {
      const resp = await fetch(`/api/games/${gameId}/watch?seat=${seat}`, { headers: headers(), signal: ctrl.signal });
      if (!resp.ok) { const body = await resp.json(); throw new Error(`${body.code}: ${body.error}`); }
      const reader = resp.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let cut;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const type = (block.match(/^event: (.*)$/m) || [])[1];
          const payload = (block.match(/^data: (.*)$/m) || [])[1];
          if (type === "view") {
            const msg = JSON.parse(payload);
            const [dice, words] = await Promise.all([
              lastDiceSince(kind, gameId, seat, seen + 1, ctx.lastDice),
              getJSON(`/api/games/${gameId}/words?seat=${seat}&from=${seen + 1}`)]);
            ctx.lastDice = dice;
            seen = msg.version;
            boardBox.replaceChildren(render(kind, msg.view, ctx));
            for (const line of words.lines.filter((l) => !l.text.startsWith("Bookkeeping"))) log.prepend(el("li", { "data-type": line.type }, `v${line.version} ${line.text}`));
            while (log.children.length > 12) log.lastChild.remove();
            status.textContent = `version ${msg.version}${msg.ended ? " · game over" : " · live"}`;
            status.dataset.version = String(msg.version);
            if (play) {
              if (msg.ended) play.panel.replaceChildren(el("h3", {}, "Game over"), el("div", { id: "play-over" }, "The game is over."), play.note);
              else await play.refresh();
            }
            setState(msg.ended ? "live-ended" : "live");
          } else if (type === "end") {
            status.append(" · ", el("a", { href: `#/replay/${gameId}${seat ? `?seat=${seat}` : ""}`, id: "to-replay" }, "replay it"));
            setState("live-ended");
          }
        }
      }
    })().catch((err) => { if (err.name !== "AbortError") fail(err); });
    return () => ctrl.abort();
  }

  // --- replay -------------------------------------------------------------------------
  function mergePatch(target, patch) {
    const out = { ...target };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete out[k];
      else if (typeof v === "object" && !Array.isArray(v) && out[k] && typeof out[k] === "object" && !Array.isArray(out[k])) out[k] = mergePatch(out[k], v);
      else out[k] = v;
    }
    return out;
  }

  async function replay(gameId, seat) {
    setState("replay-loading");
    const { info, data } = await gameContext(gameId);
    const kind = info.game;
    const [{ steps }, { lines }] = await Promise.all([
      getJSON(`/api/games/${gameId}/replay?seat=${seat}`), getJSON(`/api/games/${gameId}/words?seat=${seat}`)]);
    const textOf = Object.fromEntries(lines.map((l) => [l.version, l.text]));
    let prev = {};
    for (const step of steps) {  // rebuild each view from the RFC 7386 merge patches
      step.view = step.view || mergePatch(prev, step.patch || {});
      prev = step.view;
    }
    let records;
    let source;
    if (seat && tokenInput.value.trim()) {
      records = (await getJSON(`/api/games/${gameId}/audit`)).records;  // players only, after the end
      source = "the audit log (every die and shuffle)";
    } else {
      records = (await getJSON(`/api/games/${gameId}/events?seat=${seat}&stream=dice`)).events;
      source = "the public events (shuffle orders stay hidden from spectators; players verify them with their token)";
    }
    const verified = await window.Fairness.verifyGame(gameId, records);
    const publicDice = diceOf(kind);
    if ((window.PublicDice || {})[kind]) {
      const { kinds } = await getJSON("/api/dice/kinds");
      const clientSeed = window.Fairness.combinedSeed(records);
      const rolls = steps.map(publicDice).filter(Boolean);
      await window.Fairness.verifyPublicRolls(verified, gameId, rolls, kinds, clientSeed);
    }
    const rolls = Object.values(verified.byNonce).filter((v) => v.kind === "roll");
    const shuffles = Object.values(verified.byNonce).filter((v) => v.kind === "shuffle");
    const allOk = verified.commitmentOk && verified.failed === 0;
    // draws this reader could not check: the log says how many the game made in all
    const unchecked = verified.total === null || verified.total === undefined ? null : verified.total - rolls.length - shuffles.length;
    const hiddenNote = unchecked === null
      ? el("div", { id: "unchecked" }, "the number of draws this game made is not in its log (revealed before it was recorded)")
      : unchecked > 0
        ? el("div", { id: "unchecked", "data-unchecked": String(unchecked) }, `${unchecked} of ${verified.total} draws not checked here: ${seat && tokenInput.value.trim() ? "not in your audit log" : "dice rolled for one seat only and every deck shuffle are hidden from spectators until a player of the game checks them with their token (the rulebooks keep hands and deck order secret)"}`)
        : el("div", { id: "unchecked", "data-unchecked": "0" }, `all ${verified.total} draws of the game checked`);
    const summary = el("section", { class: "panel", id: "fairness", "data-ok": String(allOk) },
      el("h3", {}, "Fairness (computed in this page)"),
      el("div", { class: verified.commitmentOk ? "ok" : "bad" }, verified.commitmentOk ? "✓ SHA-256(seed) matches the commitment" : "✗ seed does not match the commitment"),
      el("div", {}, `${rolls.filter((r) => r.ok).length}/${rolls.length} rolls and ${shuffles.filter((s) => s.ok).length}/${shuffles.length} shuffles re-derived from the revealed seed, from ${source}`),
      hiddenNote,
      verified.failed ? el("div", { class: "bad" }, `${verified.failed} mismatches`) : null);
    const boardBox = el("div", { id: "board" });
    const label = el("span", { id: "step-label", "aria-live": "polite" });
    const slider = el("input", { type: "range", min: "0", max: String(Math.max(0, steps.length - 1)), value: "0", id: "step", "aria-label": "replay step" });
    const list = el("ol", { class: "events panel", id: "event-list", "aria-label": "events" });
    const items = steps.map((s, i) => {
      const roll = publicDice(s);
      const check = roll ? verified.byNonce[roll.nonce] : null;
      const mark = check ? (check.ok ? " ✓" : " ✗") : "";
      const item = el("li", { "data-i": String(i), "data-type": s.type, tabindex: "0" }, `v${s.version} ${textOf[s.version] || s.type}${mark}`);
      item.addEventListener("click", () => go(i));
      item.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(i); } });
      return item;
    });
    list.append(...items);
    let at = 0;
    const ctx = { seat, cards: data.cards, data, info, verified };
    function go(i) {
      at = Math.max(0, Math.min(steps.length - 1, i));
      const step = steps[at];
      let lastDice = null;
      for (let j = at; j >= 0; j--) if (publicDice(steps[j])) { lastDice = steps[j].data; break; }
      boardBox.replaceChildren(render(kind, step.view, { ...ctx, lastDice }));
      label.textContent = `step ${at + 1}/${steps.length} · version ${step.version} · ${textOf[step.version] || step.type}`;
      label.dataset.step = String(at);
      slider.value = String(at);
      items.forEach((it, j) => it.classList.toggle("current", j === at));
      items[at].scrollIntoView({ block: "nearest" });
    }
    slider.addEventListener("input", () => go(Number(slider.value)));
    const controls = el("div", { class: "controls" },
      button("first", { id: "first" }, () => go(0)), button("◀ prev", { id: "prev", "aria-label": "previous step" }, () => go(at - 1)),
      button("next ▶", { id: "next", "aria-label": "next step" }, () => go(at + 1)), button("last", { id: "last" }, () => go(steps.length - 1)), slider, label);
    const keys = (e) => {
      if (e.target instanceof HTMLInputElement) return;
      if (e.key === "ArrowRight") go(at + 1); else if (e.key === "ArrowLeft") go(at - 1);
    };
    document.addEventListener("keydown", keys);
    const links = el("p", {}, `${kind} · ${info.mode} · `,
      button("audit log (players)", { id: "audit-link", class: "linkish" }, () => window.Lobby.downloadAudit(getJSON, gameId).catch((err) => alert(err.message))), " · ",
      el("a", { href: "/guide/disputes", id: "dispute-link", class: "dispute" }, "dispute guide (docs/disputes.md)"));
    show(el("h2", {}, `Replay: ${gameId}${seat ? ` as ${seat}` : " (spectator)"}`), links, summary, controls, boardBox, el("h3", {}, "Events"), list);
    if (steps.length) go(0);
    setState("replay");
    return () => document.removeEventListener("keydown", keys);
  }

  async function route() {
    stopCurrent();
    stopCurrent = () => {};
    const [path, query] = (location.hash.slice(1) || "/").split("?");
    const seat = new URLSearchParams(query || "").get("seat") || "";
    const parts = path.split("/").filter(Boolean);
    try {
      if (parts[0] === "live" && parts[1]) stopCurrent = await live(parts[1], seat);
      else if (parts[0] === "replay" && parts[1]) stopCurrent = await replay(parts[1], seat);
      else stopCurrent = await window.Lobby({ el, getJSON, postJSON, show, setState, button, tokenInput, fail });
    } catch (err) {
      fail(err);
    }
  }

  window.addEventListener("hashchange", route);
  route();
})();
