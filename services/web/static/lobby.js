// The lobby: games with sorted seats, mode, start time, result; filters; start a game.
"use strict";

(function () {
  const infoCache = {};  // finished games do not change: their info is asked once

  const SEAT_ORDER = ["hero", "dungeon_lord", "p1", "p2", "p3", "p4", "p5", "p6"];
  const seatRank = (s) => { const i = SEAT_ORDER.indexOf(s); return i < 0 ? 99 : i; };
  const sortedSeats = (seats) => Object.entries(seats).sort(([a], [b]) => seatRank(a) - seatRank(b) || a.localeCompare(b));

  function result(info) {
    if (!info || !info.ended) return "";
    const o = info.outcome || {};
    const winners = o.winners || (o.winner ? [o.winner] : []);
    return winners.length ? `won by ${winners.join(", ")}${o.kind ? ` (${o.kind.replace(/_/g, " ")})` : ""}` : `no winner${o.kind ? ` (${o.kind.replace(/_/g, " ")})` : ""}`;
  }

  // The audit log needs the player's token, so it is fetched and saved as a file.
  async function downloadAudit(getJSON, gameId) {
    const body = await getJSON(`/api/games/${gameId}/audit`);
    const url = URL.createObjectURL(new Blob([JSON.stringify(body, null, 1)], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${gameId}-audit.json`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  function startForm(ui) {
    const { el, postJSON, button, tokenInput } = ui;
    const game = el("select", { id: "new-game", "aria-label": "game" }, ...["fallen", "worlds", "land"].map((g) => el("option", { value: g }, g)));
    const mode = el("select", { id: "new-mode", "aria-label": "mode" });
    const modes = { fallen: ["vs_bot"], worlds: ["vs_bot"], land: ["solo1", "solo2"] };
    const fillModes = () => mode.replaceChildren(...modes[game.value].map((m) => el("option", { value: m }, m.replace("_", " "))));
    game.addEventListener("change", fillModes);
    fillModes();
    const role = el("select", { id: "new-role", "aria-label": "role (Fallen)" }, el("option", { value: "" }, "any role"), el("option", { value: "hero" }, "Hero"), el("option", { value: "dungeon_lord" }, "Dungeon Lord"));
    const player = el("input", { id: "dev-player", placeholder: "your name", "aria-label": "player name (development login)", value: localStorage.getItem("fallen-player") || "" });
    const note = el("span", { id: "start-note", role: "status" });
    const login = button("dev login", { id: "dev-login" }, async () => {
      try {
        const { token } = await postJSON("/api/dev/token", { player: player.value.trim() });
        tokenInput.value = token;
        localStorage.setItem("fallen-token", token);
        localStorage.setItem("fallen-player", player.value.trim());
        note.textContent = `signed in as ${player.value.trim()}`;
      } catch (err) { note.textContent = String(err.message || err); }
    });
    const start = button("start game", { id: "start-game" }, async () => {
      note.textContent = "finding a game…";
      try {
        const body = { mode: mode.value, role: role.value, challenge: mode.value === "solo2" ? 1 : 0 };
        const m = await postJSON(`/api/play/${game.value}`, body);
        if (!m.game_id) { note.textContent = "still queued: try again in a moment"; return; }
        location.hash = `#/live/${m.game_id}?seat=${m.seat}`;
      } catch (err) { note.textContent = String(err.message || err); }
    });
    return el("section", { class: "panel", id: "start" }, el("h3", {}, "Play a game"),
      el("div", { class: "row" }, player, login),
      el("div", { class: "row" }, game, mode, role, start), note);
  }

  window.Lobby = async function lobby(ui) {
    const { el, getJSON, show, setState, button } = ui;
    setState("lobby-loading");
    const kindFilter = el("select", { id: "filter-game", "aria-label": "filter by game" }, el("option", { value: "" }, "every game"), ...["fallen", "worlds", "land"].map((g) => el("option", { value: g }, g)));
    const stateFilter = el("select", { id: "filter-state", "aria-label": "filter by state" }, el("option", { value: "" }, "any state"), el("option", { value: "live" }, "in progress"), el("option", { value: "ended" }, "finished"));
    const tableBox = el("div", { id: "games-box" });
    const form = startForm(ui);
    let games = [];
    const draw = async () => {
      const shown = games.filter((g) => (!kindFilter.value || g.game === kindFilter.value)
        && (!stateFilter.value || (stateFilter.value === "ended") === g.ended));
      await Promise.all(shown.slice(0, 40).map(async (g) => {
        if (infoCache[g.game_id] && (infoCache[g.game_id].ended || infoCache[g.game_id].version === g.version)) return;
        try { infoCache[g.game_id] = await getJSON(`/api/games/${g.game_id}/info`); } catch (e) { /* listed without details */ }
      }));
      const rows = shown.map((g) => {
        const info = infoCache[g.game_id];
        const links = g.ended
          ? [el("a", { href: `#/replay/${g.game_id}`, class: "replay" }, "replay"), " · ",
            button("audit log", { class: "audit linkish", "aria-label": `download the audit log of ${g.game_id}` }, () => downloadAudit(getJSON, g.game_id).catch((err) => alert(err.message))), " · ",
            el("a", { href: "/guide/disputes", class: "dispute" }, "dispute guide")]
          : [el("a", { href: `#/live/${g.game_id}`, class: "watch" }, "watch live")];
        return el("tr", { "data-game-id": g.game_id, "data-ended": String(g.ended), "data-seats": JSON.stringify(g.seats), "data-kind": g.game },
          el("td", {}, g.game_id), el("td", {}, g.game), el("td", { class: "mode" }, info ? info.mode : ""),
          el("td", { class: "seats" }, sortedSeats(g.seats).map(([s, p]) => `${s}: ${p}`).join(", ")),
          el("td", { class: "started" }, info && info.started ? info.started.replace("T", " ").slice(0, 19) : ""),
          el("td", {}, g.version),
          el("td", { class: `status ${g.ended ? "ended" : "live"}` }, g.ended ? `finished, ${result(info)}` : "in progress"),
          el("td", {}, ...links));
      });
      tableBox.replaceChildren(games.length
        ? el("div", { class: "scroll" }, el("table", { id: "games" }, el("tr", {}, ["game", "kind", "mode", "seats", "started (UTC)", "version", "status", ""].map((h) => el("th", { scope: "col" }, h))), rows))
        : el("p", { class: "muted", id: "games-empty" }, "no games yet: start one above, or fallenctl play fallen --target 127.0.0.1:50051 --pace-ms 300"));
    };
    const refresh = async () => {
      games = (await getJSON("/api/games")).games;
      games.sort((a, b) => Number(a.ended) - Number(b.ended) || a.game.localeCompare(b.game) || a.game_id.localeCompare(b.game_id));
      await draw();
      setState("lobby");
    };
    const problem = el("div", { id: "lobby-problem", class: "bad", role: "status" });
    const retry = (err) => { problem.textContent = `could not refresh: ${err.message || err}`; };
    kindFilter.addEventListener("change", () => draw().catch(retry));
    stateFilter.addEventListener("change", () => draw().catch(retry));
    show(el("h2", {}, "Games"), form, el("div", { class: "row filters" }, kindFilter, stateFilter), problem, tableBox);
    await refresh();
    let running = false;  // one refresh at a time; a failed one is retried by the next tick
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      refresh().then(() => { problem.textContent = ""; }, retry).finally(() => { running = false; });
    }, 2000);
    return () => clearInterval(timer);
  };
  window.Lobby.downloadAudit = downloadAudit;
})();
