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
// out: {"t":"msg","id":ID,"side":"p1","data":TEXT}   what a server sends that player after ">ID\n"
//      {"t":"end","id":ID,"winner":NAME,"turns":T,"seed":S[,"log":[...],"inputLog":[...]]}
//      {"t":"crash","id":ID,"error":STACK}   {"t":"pong","n":N,"battles":K}   {"t":"ready","pid":P}
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
const {extractChannelMessages} = require(path.join(pkg, 'dist/sim/battle.js'));
const {Dex} = require(path.join(pkg, 'dist/sim/dex.js'));

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
  if (!st) return; // ended or dropped: a late choice or forfeit means nothing
  const side = m.side;
  if (m.t === 'drop') return drop(m.id, st);
  if (!SIDES.includes(side)) throw new Error(`bad side ${side}`);
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
