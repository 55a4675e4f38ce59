'use strict';
// The simulator alone: Showdown's BattleStream (as in stream_worker.js) with Showdown's own
// RandomPlayerAI choosing for both sides, called synchronously in this one Node process (no
// promise-based player streams), battles back to back for SECONDS. No Python, no pipes, no server.
// usage: node ceiling.js PACKAGE_DIR FORMAT TEAMS_JSON SECONDS SEED
// TEAMS_JSON: a file holding a JSON list of packed teams (drawn per battle and side).
// Prints one JSON line: {"battles":N,"seconds":S,"battles_per_s":R,"cpu_s":C,"turns":T,"errors":E}.
const fs = require('fs');
const path = require('path');

const [pkg, format, teamsFile, secondsArg, seedArg] = process.argv.slice(2);
const {BattleStream} = require(path.join(pkg, 'dist/sim/battle-stream.js'));
const {RandomPlayerAI} = require(path.join(pkg, 'dist/sim/tools/random-player-ai.js'));
const {PRNG} = require(path.join(pkg, 'dist/sim/prng.js'));

const teams = JSON.parse(fs.readFileSync(teamsFile, 'utf8'));
const seconds = Number(secondsArg);
const prng = new PRNG(`sodium,${Number(seedArg).toString(16).padStart(32, '0')}`);
const seed = () => `sodium,${Array.from({length: 4}, () => prng.random(2 ** 32).toString(16).padStart(8, '0')).join('')}`;
let errors = 0;

class Stream extends BattleStream {
  constructor(requests) {
    super({keepAlive: true});
    this.requests = requests;
    this.ended = false;
  }
  pushMessage(type, data) {
    if (type === 'sideupdate') {
      const nl = data.indexOf('\n');
      const line = data.slice(nl + 1);
      if (line.startsWith('|request|')) this.requests.push([data.slice(0, nl), JSON.parse(line.slice(9))]);
      else if (line.startsWith('|error|')) errors++;
    } else if (type === 'end') {
      this.ended = true;
    }
  }
}

function battle() {
  const requests = [];
  const choices = [];
  const stream = new Stream(requests);
  const ai = {};
  for (const side of ['p1', 'p2']) {
    ai[side] = new RandomPlayerAI({write: c => choices.push([side, c])}, {seed: seed()});
  }
  stream.write(`>start ${JSON.stringify({formatid: format, seed: seed()})}\n` +
    `>player p1 ${JSON.stringify({name: 'p1', team: prng.sample(teams)})}\n` +
    `>player p2 ${JSON.stringify({name: 'p2', team: prng.sample(teams)})}`);
  while (!stream.ended && (requests.length || choices.length)) {
    while (requests.length) {
      const [side, req] = requests.shift();
      ai[side].receiveRequest(req);
    }
    while (choices.length) {
      const [side, c] = choices.shift();
      stream.write(`>${side} ${c}`);
    }
  }
  const turns = stream.battle.turn;
  stream.battle.destroy();
  return turns;
}

for (let k = 0; k < 30; k++) battle(); // warm: the dex and the format load, the JIT settles
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
let n = 0;
let turns = 0;
while (Number(process.hrtime.bigint() - t0) / 1e9 < seconds) {
  turns += battle();
  n++;
}
const s = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
process.stdout.write(JSON.stringify({battles: n, seconds: s, battles_per_s: n / s,
  cpu_s: (cpu.user + cpu.system) / 1e6, turns, errors}) + '\n');
