'use strict';
// Drive one league/showdown/stream_worker.js with Showdown's "default" choice for every
// request, N battles at once, for M minutes: the worker's own memory, with no Python in
// the loop (issue 29: does a Node stream worker's RSS grow with the battles it plays?).
// usage: LEAGUE_MEMTRACE=DIR LEAGUE_MEMTRACE_NODE_MS=10000 node drive_worker.js ROOT TEAMS_DIR MINUTES [CONCURRENCY]
const {spawn} = require('child_process');
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const [root, teamsDir, minutes, conc] = process.argv.slice(2);
const pkg = path.join(root, 'node_modules/pokemon-showdown');
const {Teams} = require(path.join(pkg, 'dist/sim/teams.js'));
const teams = fs.readdirSync(teamsDir).filter(f => f.endsWith('.txt')).sort()
  .map(f => Teams.pack(Teams.import(fs.readFileSync(path.join(teamsDir, f), 'utf8'))));
const N = Number(conc) || 24;
const end = Date.now() + Number(minutes) * 60000;
const w = spawn(process.execPath, [path.join(root, 'league/showdown/stream_worker.js'), pkg], {stdio: ['pipe', 'pipe', 'inherit']});
let next = 0, done = 0, crashes = 0, live = 0;
const send = m => w.stdin.write(JSON.stringify(m) + '\n');
function start() {
  if (Date.now() > end) return;
  const id = `b${next++}`;
  live++;
  const t = k => teams[(next * 7 + k * 13) % teams.length];
  send({t: 'start', id, format: 'gen9vgc2023regc', p1: {name: 'a', team: t(0)}, p2: {name: 'b', team: t(1)}});
}
readline.createInterface({input: w.stdout}).on('line', line => {
  const m = JSON.parse(line);
  if (m.t === 'msg' && m.data.includes('|request|')) {
    const req = m.data.slice(m.data.lastIndexOf('|request|') + 9);
    if (req && !req.startsWith('{"wait"')) send({t: 'choose', id: m.id, side: m.side, choice: 'default'});
  } else if (m.t === 'end' || m.t === 'crash') {
    done++; live--;
    if (m.t === 'crash') crashes++;
    start();
    if (!live) { console.log(JSON.stringify({battles: done, crashes})); w.stdin.end(); }
  }
});
for (let i = 0; i < N; i++) start();
