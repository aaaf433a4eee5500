// The provably fair scheme of docs/fairness.md, recomputed in the browser (Web Crypto).
"use strict";

const enc = new TextEncoder();

function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Draws: unbiased integers from HMAC-SHA256(server_seed, "game:client:nonce:r") blocks.
class Draws {
  constructor(key, gameId, clientSeed, nonce) {
    this.key = key;
    this.prefix = `${gameId}:${clientSeed}:${nonce}:`;
    this.r = 0;
    this.buf = new Uint8Array(0);
    this.pos = 0;
  }
  async byte() {
    if (this.pos >= this.buf.length) {
      const mac = await crypto.subtle.sign("HMAC", this.key, enc.encode(this.prefix + this.r));
      this.r += 1;
      this.buf = new Uint8Array(mac);
      this.pos = 0;
    }
    return this.buf[this.pos++];
  }
  async uniform(k) {
    const limit = Math.floor(2 ** 32 / k) * k;
    for (;;) {
      let x = 0;
      for (let i = 0; i < 4; i++) x = x * 256 + (await this.byte());
      if (x < limit) return x % k;
    }
  }
}

async function hmacKey(serverSeedHex) {
  return crypto.subtle.importKey(
    "raw", hexToBytes(serverSeedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

async function sha256Hex(bytes) {
  return bytesToHex(await crypto.subtle.digest("SHA-256", bytes));
}

async function shuffleOrder(key, gameId, clientSeed, nonce, count) {
  const draws = new Draws(key, gameId, clientSeed, nonce);
  const out = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = await draws.uniform(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// combinedSeed(records): the client seed of every draw (docs/fairness.md, "Client seeds"):
// `seat=seed` for every seat of DiceSeedCommitted.seats in sorted order, joined with ";".
function combinedSeed(records) {
  const committed = records.find((r) => r.type === "DiceSeedCommitted");
  const given = {};
  for (const r of records) if (r.type === "DiceClientSeedSet") given[r.data.seat] = r.data.seat_seed;
  const seats = committed && committed.data.seats;
  if (seats) return [...seats].sort().map((s) => `${s}=${given[s] ?? ""}`).join(";");
  const named = Object.keys(given).sort();  // a game committed before seats were recorded
  if (named.length) return named.map((s) => `${s}=${given[s]}`).join(";");
  return committed ? committed.data.client_seed || "" : "";
}

// verifyGame(gameId, records): records are dice/deck events ({type, data}); returns
// {commitmentOk, seed, byNonce: {nonce: {kind, ok, why}}, shuffles: [...]}.
async function verifyGame(gameId, records) {
  const result = { commitmentOk: false, seed: "", byNonce: {}, checked: 0, failed: 0 };
  const revealed = records.find((r) => r.type === "DiceSeedRevealed");
  const committed = records.find((r) => r.type === "DiceSeedCommitted");
  if (!revealed) return result;
  const seed = revealed.data.server_seed;
  result.seed = seed;
  // how many draws the game made in all (null in games revealed before it was recorded)
  result.total = typeof revealed.data.draws === "number" ? revealed.data.draws : null;
  const commitment = (committed || revealed).data.commitment;
  result.commitmentOk = (await sha256Hex(hexToBytes(seed))) === commitment;
  const key = await hmacKey(seed);
  const orders = {};
  const mark = (nonce, kind, ok, why) => {
    result.byNonce[nonce] = { kind, ok: ok && result.commitmentOk, why };
    result.checked += 1;
    if (!ok) result.failed += 1;
  };
  for (const rec of records) {
    const d = rec.data;
    if (rec.type === "DiceRolled") {
      const draws = new Draws(key, gameId, d.client_seed || "", d.nonce);
      let ok = true;
      let why = "";
      for (const die of d.dice || []) {
        const index = await draws.uniform(die.faces.length);
        if (index !== die.index || die.faces[index] !== die.face) {
          ok = false;
          why = `${die.kind}: seed gives ${die.faces[index]}, log says ${die.face}`;
        }
      }
      mark(d.nonce, "roll", ok, why);
    } else if (rec.type === "DiceShuffleDrawn") {
      const order = await shuffleOrder(key, gameId, d.client_seed || "", d.nonce, d.count);
      orders[d.nonce] = order;
      mark(d.nonce, "shuffle", same(order, d.order), same(order, d.order) ? "" : "order differs");
    }
  }
  for (const rec of records) {
    if (rec.type !== "DeckShuffled") continue;
    const d = rec.data;
    const order = orders[d.nonce];
    const ok = !!order && same(d.after, order.map((i) => d.before[i]));
    const prior = result.byNonce[d.nonce];
    if (prior) prior.ok = prior.ok && ok;
    if (!ok) result.failed += 1;
  }
  return result;
}

// verifyPublicRolls(result, gameId, rolls, kinds, clientSeed): rolls seen in public game
// events ({nonce, dice: [{kind, face}]}) re-derived with the catalog's face lists.
async function verifyPublicRolls(result, gameId, rolls, kinds, clientSeed) {
  if (!result.seed) return result;
  const key = await hmacKey(result.seed);
  for (const roll of rolls) {
    if (result.byNonce[roll.nonce]) continue;  // already checked from a fuller record
    const draws = new Draws(key, gameId, clientSeed, roll.nonce);
    let ok = true;
    let why = "";
    for (const die of roll.dice) {
      const faces = kinds[die.kind];
      if (!faces) { ok = false; why = `unknown dice kind ${die.kind}`; break; }
      const face = faces[await draws.uniform(faces.length)];
      if (face !== die.face) { ok = false; why = `${die.kind}: seed gives ${face}, log says ${die.face}`; }
    }
    result.byNonce[roll.nonce] = { kind: "roll", ok: ok && result.commitmentOk, why };
    result.checked += 1;
    if (!ok) result.failed += 1;
  }
  return result;
}

window.Fairness = { verifyPublicRolls, verifyGame, combinedSeed, shuffleOrder, hmacKey, Draws, sha256Hex, hexToBytes };
