'use strict';
// A Showdown battle worker without a server: many battles at once, each one Showdown's own
// BattleStream (dist/sim/battle-stream.js, the class the server's RoomBattleStream extends),
// driven by JSON lines on stdin and answering JSON lines on stdout. Python side:
// league/showdown/stream.py.
//
// in : {"t":"start","id":ID,"format":F,"seed":"sodium,<hex>","p1":{"name":N,"team":PACKED},"p2":{...},
//       "log":false}                               log: add the omniscient battle log to the end frame
//      {"t":"choose","id":ID,"side":"p1","choice":"move 1 1, move 2 2"}   ("team 1234", "default", ...)
//      {"t":"undo"|"forcelose"|"ots_accept"|"ots_reject","id":ID,"side":"p1"}
//      {"t":"drop","id":ID}      {"t":"ping","n":N}     {"t":"crash_me"} (tests: the worker dies)
//      {"t":"fork","id":ID,"side":"p1","rid":N,"choices":[C,...],"samples":S,"seed":[a,b,c,d][,"foe_ev":E]}
//                                a look one turn ahead for a search player (league/players/search.py);
//                                foe_ev: the copies' foes get E in every stat, not their own spread;
//                                report: add the foes as the copies see them (tests)
// out: {"t":"msg","id":ID,"side":"p1","data":TEXT}   what a server sends that player after ">ID\n"
//      {"t":"end","id":ID,"winner":NAME,"turns":T,"seed":S[,"log":[...],"inputLog":[...]]}
//      {"t":"crash","id":ID,"error":STACK}   {"t":"pong","n":N,"battles":K}   {"t":"ready","pid":P}
//      {"t":"forked","id":ID,"rid":N,"values":[V|null,...]|null,"foe":FOE_CHOICE[,"foes":[...]]}
//
// Per command the battle's new log is split per player (|split| lines: each side gets its own
// secret line, as the server's sockets do) and sent as at most one frame per side, protocol lines
// first and then that side's |request| or |error|, the order in which the server sends them.
const path = require('path');
const readline = require('readline');

const pkg = process.argv[2];
if (!pkg) {
  process.stderr.write('usage: node stream_worker.js PATH/node_modules/pokemon-showdown\n');
  process.exit(2);
}
const {BattleStream} = require(path.join(pkg, 'dist/sim/battle-stream.js'));
const {Battle, extractChannelMessages} = require(path.join(pkg, 'dist/sim/battle.js'));
const {Dex} = require(path.join(pkg, 'dist/sim/dex.js'));
const {PRNG} = require(path.join(pkg, 'dist/sim/prng.js'));

const SIDES = ['p1', 'p2'];
const battles = new Map();
let out = [];
let scheduled = false;
let paused = false;

function flush() {
  scheduled = false;
  if (!out.length) return;
  const ok = process.stdout.write(out.join('\n') + '\n');
  out = [];
  if (!ok && !paused) { // the reader is slow: stop taking commands until the pipe drains
    paused = true;
    rl.pause();
    process.stdout.once('drain', () => { paused = false; rl.resume(); });
  }
}

function emit(obj) {
  out.push(JSON.stringify(obj));
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}

class WorkerStream extends BattleStream {
  constructor(st) {
    super({keepAlive: true});
    this.st = st;
  }
  pushMessage(type, data) {
    const st = this.st;
    if (type === 'update') {
      const ch = extractChannelMessages(data, [1, 2]);
      if (ch[1].length) st.buf.p1.push(ch[1].join('\n'));
      if (ch[2].length) st.buf.p2.push(ch[2].join('\n'));
    } else if (type === 'sideupdate') {
      const nl = data.indexOf('\n');
      const side = data.slice(0, nl);
      if (st.buf[side]) st.buf[side].push(data.slice(nl + 1));
    } else if (type === 'end') {
      st.endLog = JSON.parse(data);
    }
  }
  pushError(err) { // BattleStream._write catches what the simulator throws and lands here
    this.st.error = err;
  }
}

function flushBattle(id, st) {
  for (const side of SIDES) {
    if (!st.buf[side].length) continue;
    let data = st.buf[side].join('\n');
    st.buf[side] = [];
    if (!st.inited[side]) {
      data = `|init|battle\n|title|${st.title}\n` + data;
      st.inited[side] = true;
    }
    emit({t: 'msg', id, side, data});
  }
  if (st.error) {
    drop(id, st);
    emit({t: 'crash', id, error: String(st.error && st.error.stack || st.error)});
  } else if (st.endLog) {
    const e = st.endLog;
    const frame = {t: 'end', id, winner: e.winner, turns: e.turns, seed: e.seed};
    if (st.wantLog) {
      frame.log = extractChannelMessages(st.stream.battle.log.join('\n'), [-1])[-1];
      frame.inputLog = st.stream.battle.inputLog;
    }
    drop(id, st);
    emit(frame);
  }
}

let finished = 0; // battles ended or dropped (LEAGUE_MEMTRACE's lines)

function drop(id, st) {
  if (battles.delete(id)) finished++;
  try { if (st.stream.battle) st.stream.battle.destroy(); } catch (e) {}
}

function otsVote(st, side, accept) {
  // What the server's /acceptopenteamsheets and /rejectopenteamsheets do (chat-commands/core):
  // the sheets are shown once every player accepted; a refusal is a plain line to everyone.
  const battle = st.stream.battle;
  if (!battle || battle.turn !== 0) return;
  if (!accept) {
    const line = `${battle.getSide(side).name} rejected open team sheets.`;
    for (const s of SIDES) st.buf[s].push(line);
    return;
  }
  st.ots[side] = true;
  if (SIDES.every(s => st.ots[s])) st.stream.write('>show-openteamsheets');
}

// ---------------------------------------------------------------- one turn ahead (search)
// A copy of the battle as it stands at SIDE's move request, for each candidate choice of
// SIDE and each sample: both sides' pending choices cleared (the live foe may have chosen
// already: the copy never sees it), a fresh PRNG from the given seed (never the live
// battle's: the copy cannot read the coming rolls), the foe choosing by the foe model, then
// one turn played by Showdown's own code. The value of what follows for SIDE: +1 won, -1
// lost, else the two sides' material, each Pokémon worth 0 fainted and 0.5 + 0.5 x its HP
// share alive, (own - foe's) / the team size. Nothing of the live battle changes.
const TARGETED = new Set(['normal', 'any', 'adjacentFoe']);
const SPREAD = new Set(['allAdjacentFoes', 'allAdjacent']);

function restore(snap, foe, foeEv) {
  const b = Battle.fromJSON(snap);
  for (const side of b.sides) side.clearChoice();
  if (typeof foeEv === 'number') hideSpread(b, b.getSide(foe), foeEv);
  return b;
}

// What a player does not see of the foe: its spread. Each foe Pokémon of the copy gets EV
// in every stat (stat points in Champions), IVs 31 and a neutral nature, its stats worked
// out again by the format's own formula, and its HP set from the share the player is shown
// (its health line), as the player's own estimate of it does (league/battle/dex.py's even
// spread). A transformed Pokémon keeps the stats it copied.
function hideSpread(b, side, ev) {
  for (const p of side.pokemon) {
    if (p.transformed) continue;
    const shown = /^(\d+)\/(\d+)/.exec(p.getHealth().shared);
    const share = p.hp > 0 && shown ? Number(shown[1]) / Number(shown[2]) : 0;
    const set = p.set;
    for (const s of ['hp', 'atk', 'def', 'spa', 'spd', 'spe']) {
      set.evs[s] = ev;
      set.ivs[s] = 31;
    }
    set.nature = 'Serious';
    const stats = b.spreadModify(p.species.baseStats, set);
    if (p.species.maxHP) stats.hp = p.species.maxHP;
    p.baseStoredStats = stats;
    for (const s in p.storedStats) p.storedStats[s] = stats[s];
    p.speed = p.storedStats.spe;
    p.baseMaxhp = p.maxhp = stats.hp;
    p.hp = p.hp > 0 ? Math.max(1, Math.round(share * stats.hp)) : 0;
  }
}

function material(side) {
  let v = 0;
  for (const p of side.pokemon) if (!p.fainted && p.hp > 0) v += 0.5 + 0.5 * p.hp / p.maxhp;
  return v;
}

function leafValue(b, side) {
  if (b.ended) return b.winner === side.name ? 1 : (b.winner ? -1 : 0);
  return (material(side) - material(side.foe)) / Math.max(side.pokemon.length, side.foe.pokemon.length, 1);
}

// The foe model: each active foe uses the move that takes the most HP from our actives
// (Showdown's own damage formula, rolled once on this copy; spread moves x0.75 summed),
// no Terastallization; a slot with no damaging move, or a choice Showdown refuses, is
// chosen as Showdown's "default" does.
function maxDamageChoice(b, side) {
  const req = side.activeRequest;
  if (!req || req.wait || !req.active) return 'default';
  const parts = [];
  for (let i = 0; i < side.active.length; i++) {
    const mon = side.active[i], r = req.active[i];
    if (!mon || mon.fainted || !r || r.commanding) { parts.push('pass'); continue; }
    let best = null, bestDmg = 0;
    r.moves.forEach((ms, j) => {
      if (ms.disabled || (typeof ms.pp === 'number' && ms.pp <= 0)) return;
      const move = b.dex.moves.get(ms.id);
      if (!move.exists || move.category === 'Status') return;
      const target = ms.target || move.target;
      const foes = side.foe.active.map((p, k) => [p, k]).filter(([p]) => p && !p.fainted && p.hp > 0);
      const dmgTo = p => {
        const d = b.actions.getDamage(mon, p, move.id, true);
        return typeof d === 'number' && d > 0 ? Math.min(d, p.hp) : 0;
      };
      if (SPREAD.has(target)) {
        const d = 0.75 * foes.reduce((s, [p]) => s + dmgTo(p), 0);
        if (d > bestDmg) { bestDmg = d; best = `move ${j + 1}`; }
      } else if (TARGETED.has(target)) {
        for (const [p, k] of foes) {
          const d = dmgTo(p);
          if (d > bestDmg) { bestDmg = d; best = `move ${j + 1} ${k + 1}`; }
        }
      } else if (target === 'randomNormal' || target === 'scripted') {
        const d = foes.length ? Math.max(...foes.map(([p]) => dmgTo(p))) : 0;
        if (d > bestDmg) { bestDmg = d; best = `move ${j + 1}`; }
      }
    });
    if (best === null) return 'default';
    parts.push(best);
  }
  return parts.join(', ');
}

function fork(st, m) {
  const out = {t: 'forked', id: m.id, rid: m.rid, values: null, foe: null};
  const battle = st.stream.battle;
  if (!battle || battle.ended || battle.requestState !== 'move') return out;
  const me = battle.getSide(m.side);
  if (!me.activeRequest || me.activeRequest.wait) return out;
  const snap = JSON.stringify(battle.toJSON());
  const [a, bb, c, d] = m.seed;
  const foeId = me.foe.id;
  let model;
  try {
    const probe = restore(snap, foeId, m.foe_ev);
    probe.prng = new PRNG([a, bb, c, d]);
    model = maxDamageChoice(probe, probe.getSide(m.side).foe);
  } catch (e) {
    model = 'default';
  }
  out.foe = model;
  if (m.report) {
    try {
      const probe = restore(snap, foeId, m.foe_ev);
      out.foes = probe.getSide(foeId).pokemon.map(p => ({species: p.species.id, hp: p.hp, maxhp: p.maxhp, stats: p.storedStats}));
      probe.destroy();
    } catch (e) {
      out.foes = null;
    }
  }
  out.values = m.choices.map((choice, i) => {
    let sum = 0;
    for (let k = 0; k < m.samples; k++) {
      try {
        const b = restore(snap, foeId, m.foe_ev);
        b.prng = new PRNG([a + 1 + i, bb, c, d + k]);
        const mine = b.getSide(m.side), foe = mine.foe;
        if (!(model !== 'default' && foe.choose(model))) { foe.clearChoice(); foe.autoChoose(); }
        if (!mine.choose(choice) || !mine.isChoiceDone()) return null;
        if (b.allChoicesDone()) b.commitChoices();
        sum += leafValue(b, mine);
        b.destroy();
      } catch (e) {
        return null;
      }
    }
    return sum / m.samples;
  });
  return out;
}

function handle(m) {
  if (m.t === 'ping') return emit({t: 'pong', n: m.n, battles: battles.size});
  if (m.t === 'crash_me') process.exit(3);
  if (m.t === 'start') {
    if (battles.has(m.id)) throw new Error(`battle ${m.id} already exists`);
    if (!Dex.formats.get(m.format).exists) throw new Error(`unknown format ${m.format}`);
    const st = {
      buf: {p1: [], p2: []}, inited: {}, ots: {}, endLog: null, error: null, wantLog: !!m.log,
      title: `${m.p1.name} vs. ${m.p2.name}`,
    };
    st.stream = new WorkerStream(st);
    battles.set(m.id, st);
    const start = {formatid: m.format};
    if (m.seed) start.seed = m.seed;
    st.stream.write(`>start ${JSON.stringify(start)}\n` +
      `>player p1 ${JSON.stringify(m.p1)}\n>player p2 ${JSON.stringify(m.p2)}`);
    return flushBattle(m.id, st);
  }
  const st = battles.get(m.id);
  if (!st) { // ended or dropped: a late choice or forfeit means nothing; a look ahead finds nothing
    if (m.t === 'fork') emit({t: 'forked', id: m.id, rid: m.rid, values: null, foe: null});
    return;
  }
  const side = m.side;
  if (m.t === 'drop') return drop(m.id, st);
  if (!SIDES.includes(side)) throw new Error(`bad side ${side}`);
  if (m.t === 'fork') return emit(fork(st, m)); // the live battle unchanged: nothing to flush
  switch (m.t) {
  case 'choose':
    if (/[\n\r]/.test(m.choice)) throw new Error('a choice is one line');
    st.stream.write(`>${side} ${m.choice}`);
    break;
  case 'undo': st.stream.write(`>${side} undo`); break;
  case 'forcelose': st.stream.write(`>forcelose ${side}`); break;
  case 'ots_accept': otsVote(st, side, true); break;
  case 'ots_reject': otsVote(st, side, false); break;
  default: throw new Error(`unknown command ${m.t}`);
  }
  flushBattle(m.id, st);
}

const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
rl.on('line', line => {
  if (!line) return;
  let m = null;
  try {
    m = JSON.parse(line);
    handle(m);
  } catch (err) {
    const id = m && m.id;
    const st = id && battles.get(id);
    if (st) drop(id, st);
    emit({t: 'crash', id: id || null, error: String(err && err.stack || err)});
  }
});
rl.on('close', () => { flush(); process.exit(0); }); // the parent is gone or closed our stdin

// LEAGUE_MEMTRACE=DIR (a diagnostic, league/memtrace.py): V8's heap and the RSS each minute.
if (process.env.LEAGUE_MEMTRACE) {
  const fs = require('fs');
  const file = path.join(process.env.LEAGUE_MEMTRACE, `node_${process.pid}.jsonl`);
  const t0 = Date.now();
  const every = Number(process.env.LEAGUE_MEMTRACE_NODE_MS) || 60000;
  setInterval(() => {
    const m = process.memoryUsage();
    const mb = x => Math.round(x / 1048576 * 10) / 10;
    try { // a diagnostic never stops the worker: a directory that cannot be written is skipped
      fs.mkdirSync(process.env.LEAGUE_MEMTRACE, {recursive: true});
      fs.appendFileSync(file, JSON.stringify({
        min: Math.round((Date.now() - t0) / 6000) / 10, rss: mb(m.rss), heapTotal: mb(m.heapTotal),
        heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers),
        live: battles.size, finished,
      }) + '\n');
    } catch (e) {}
  }, every).unref();
}

// Load the dex and the formats before saying ready, so the first battle does not pay for it.
Dex.formats.get('gen9vgc2023regc');
Dex.forGen(9).includeData();
emit({t: 'ready', pid: process.pid});
