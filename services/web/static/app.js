// The page: #/ lobby, #/live/<game>[?seat=s], #/replay/<game>[?seat=s].
"use strict";

(function () {
  const { el } = window.UI;
  const main = document.getElementById("main");
  const tokenInput = document.getElementById("token");
  tokenInput.value = localStorage.getItem("fallen-token") || "";
  tokenInput.addEventListener("change", () => { localStorage.setItem("fallen-token", tokenInput.value.trim()); route(); });
  let stopCurrent = () => {};

  function headers() {
    const t = tokenInput.value.trim();
    return t ? { Authorization: `Bearer ${t}` } : {};
  }

  async function getJSON(url) {
    const resp = await fetch(url, { headers: headers() });
    const body = await resp.json();
    if (!resp.ok) throw new Error(`${body.code || resp.status}: ${body.error || resp.statusText}`);
    return body;
  }

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

  function render(kind, view, ctx) {
    const r = window.Renderers[kind] || window.Renderers.generic;
    return r(view, ctx);
  }

  function show(...nodes) { main.replaceChildren(...nodes); }

  function fail(err) { setState("error"); show(el("p", { class: "bad", id: "error" }, String(err.message || err))); }

  // --- lobby --------------------------------------------------------------------------
  async function lobby() {
    setState("lobby-loading");
    let timer = 0;
    const draw = async () => {
      const { games } = await getJSON("/api/games");
      const rows = games.map((g) => el("tr", { "data-game-id": g.game_id, "data-ended": String(g.ended), "data-seats": JSON.stringify(g.seats) },
        el("td", {}, g.game_id), el("td", {}, g.game),
        el("td", {}, Object.entries(g.seats).map(([s, p]) => `${s}: ${p}`).join(", ")),
        el("td", {}, g.version),
        el("td", { class: `status ${g.ended ? "ended" : "live"}` }, g.ended ? "finished" : "in progress"),
        el("td", {}, g.ended
          ? el("a", { href: `#/replay/${g.game_id}`, class: "replay" }, "replay")
          : el("a", { href: `#/live/${g.game_id}`, class: "watch" }, "watch live"))));
      show(el("h2", {}, "Games"),
        games.length ? el("table", { id: "games" }, el("tr", {}, ["game", "kind", "seats", "version", "status", ""].map((h) => el("th", {}, h))), rows)
          : el("p", { class: "muted", id: "games-empty" }, "no games yet: play one, e.g. fallenctl play fallen --target 127.0.0.1:50051 --pace-ms 300"));
      setState("lobby");
    };
    await draw();
    timer = setInterval(() => draw().catch(fail), 2000);
    return () => clearInterval(timer);
  }

  // --- live ---------------------------------------------------------------------------
  const diceOf = (kind) => (window.PublicDice || {})[kind] || (() => null);

  async function lastDiceSince(kind, gameId, seat, from, prev) {
    const { events } = await getJSON(`/api/games/${gameId}/events?seat=${seat}&stream=game&from=${from}`);
    const rolls = events.filter((e) => diceOf(kind)(e));
    return rolls.length ? rolls[rolls.length - 1].data : prev;
  }

  async function live(gameId, seat) {
    setState("live-connecting");
    const ctrl = new AbortController();
    const title = el("h2", {}, `Live: ${gameId}${seat ? ` as ${seat}` : " (spectator)"}`);
    const status = el("p", { id: "live-status" }, "connecting…");
    const boardBox = el("div", { id: "board" });
    show(title, status, boardBox);
    let kind = "generic";
    try { kind = (await getJSON("/api/games")).games.find((g) => g.game_id === gameId)?.game || kind; } catch (e) { /* generic board */ }
    await ensureRenderer(kind);
    const ctx = { seat, lastDice: null, verified: null };
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
          const data = (block.match(/^data: (.*)$/m) || [])[1];
          if (type === "view") {
            const msg = JSON.parse(data);
            ctx.lastDice = await lastDiceSince(kind, gameId, seat, seen + 1, ctx.lastDice);
            seen = msg.version;
            boardBox.replaceChildren(render(kind, msg.view, ctx));
            status.textContent = `version ${msg.version}${msg.ended ? " · game over" : " · live"}`;
            status.dataset.version = String(msg.version);
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
    const kind = (await getJSON("/api/games")).games.find((g) => g.game_id === gameId)?.game || "generic";
    await ensureRenderer(kind);
    const { steps } = await getJSON(`/api/games/${gameId}/replay?seat=${seat}`);
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
    const summary = el("div", { class: "panel", id: "fairness", "data-ok": String(allOk) },
      el("h3", {}, "Fairness (computed in this page)"),
      el("div", { class: verified.commitmentOk ? "ok" : "bad" }, verified.commitmentOk ? "✓ SHA-256(seed) matches the commitment" : "✗ seed does not match the commitment"),
      el("div", {}, `${rolls.filter((r) => r.ok).length}/${rolls.length} rolls and ${shuffles.filter((s) => s.ok).length}/${shuffles.length} shuffles re-derived from the revealed seed, from ${source}`),
      hiddenNote,
      verified.failed ? el("div", { class: "bad" }, `${verified.failed} mismatches`) : null);
    const boardBox = el("div", { id: "board" });
    const label = el("span", { id: "step-label" });
    const slider = el("input", { type: "range", min: "0", max: String(Math.max(0, steps.length - 1)), value: "0", id: "step" });
    const list = el("div", { class: "events panel", id: "event-list" });
    const items = steps.map((s, i) => {
      const roll = publicDice(s);
      const check = roll ? verified.byNonce[roll.nonce] : null;
      const mark = check ? (check.ok ? " ✓" : " ✗") : "";
      const item = el("div", { "data-i": String(i) }, `v${s.version} ${s.type}${mark}`);
      item.addEventListener("click", () => go(i));
      return item;
    });
    list.append(...items);
    let at = 0;
    function go(i) {
      at = Math.max(0, Math.min(steps.length - 1, i));
      const step = steps[at];
      let lastDice = null;
      for (let j = at; j >= 0; j--) if (publicDice(steps[j])) { lastDice = steps[j].data; break; }
      boardBox.replaceChildren(render(kind, step.view, { seat, lastDice, verified }));
      label.textContent = `step ${at + 1}/${steps.length} · version ${step.version} · ${step.type}`;
      label.dataset.step = String(at);
      slider.value = String(at);
      items.forEach((it, j) => it.classList.toggle("current", j === at));
      items[at].scrollIntoView({ block: "nearest" });
    }
    const button = (text, id, fn) => { const b = el("button", { id }, text); b.addEventListener("click", fn); return b; };
    slider.addEventListener("input", () => go(Number(slider.value)));
    const controls = el("div", { class: "controls" },
      button("first", "first", () => go(0)), button("◀ prev", "prev", () => go(at - 1)),
      button("next ▶", "next", () => go(at + 1)), button("last", "last", () => go(steps.length - 1)), slider, label);
    show(el("h2", {}, `Replay: ${gameId}${seat ? ` as ${seat}` : " (spectator)"}`), summary, controls, boardBox, list);
    if (steps.length) go(0);
    setState("replay");
    return () => {};
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
      else stopCurrent = await lobby();
    } catch (err) {
      fail(err);
    }
  }

  window.addEventListener("hashchange", route);
  route();
})();
