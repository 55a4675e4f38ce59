// Generate teams legal in a format from Showdown's own random-battle sets.
// usage: node generate_teams.js PACKAGE_DIR FORMAT_ID N SEED
// Each Pokemon set comes from one of Showdown's random-battle generators, levelled to 50:
// gen9randomdoublesbattle's doubles sets (moves, ability, item, tera type, spread) for
// Scarlet/Violet formats, gen9championsrandombattle's sets (stat points, mega stones) for
// Pokemon Champions formats (a mod starting "champions"). A set the format's validator
// refuses alone is dropped; teams are drawn from the sets left, one species per dex
// number, items made distinct (Item Clause) from a list of common doubles items (for
// Champions, the legal sets' own items less mega stones), and each team validated whole.
// Deterministic in SEED. Prints {"format", "generator", "sets", "teams": [{"text", "packed"}], "tried"}.
'use strict';
const path = require('path');
const [pkgDir, formatId, nArg, seedArg] = process.argv.slice(2);
const ps = require(path.resolve(pkgDir, 'dist', 'sim'));
const format = ps.Dex.formats.get(formatId);
if (!format.exists) {
	process.stdout.write(JSON.stringify({error: `unknown format '${formatId}' in pokemon-showdown`}));
	process.exit(0);
}
const n = parseInt(nArg, 10);
const seed = parseInt(seedArg, 10) >>> 0;
const dex = ps.Dex.forFormat(format);
const validator = ps.TeamValidator.get(formatId);
const prng = new ps.PRNG([seed & 0xffff, (seed >>> 16) & 0xffff, 0x5eed, 0x7ea5]);
const champions = String(format.mod || '').startsWith('champions');
const GENERATOR = champions ? 'gen9championsrandombattle' : 'gen9randomdoublesbattle';
let ITEMS = ['Sitrus Berry', 'Focus Sash', 'Life Orb', 'Assault Vest', 'Safety Goggles', 'Covert Cloak',
	'Choice Scarf', 'Choice Specs', 'Choice Band', 'Leftovers', 'Clear Amulet', 'Rocky Helmet', 'Mental Herb',
	'Expert Belt', 'Lum Berry', 'Wide Lens', 'Booster Energy', 'Mystic Water', 'Charcoal', 'Miracle Seed'];

// The sets: many random-battle teams' sets, each checked alone.
const sets = new Map();
for (let i = 0; i < 400 && sets.size < 2000; i++) {
	const team = ps.Teams.generate(GENERATOR, {seed: [i + 1, seed & 0xffff, 0x51e7, 0x2a]});
	for (const s of team) {
		s.level = 50;
		s.moves = s.moves.map(m => dex.moves.get(m).name);
		if (s.item) s.item = dex.items.get(s.item).name;
		const key = `${s.species}|${[...s.moves].sort().join(',')}|${s.ability}|${s.item}`;
		if (sets.has(key)) continue;
		const probs = validator.validateSet(s, {});
		if (!probs || !probs.length) sets.set(key, s);
	}
}
const pool = [...sets.values()].sort((a, b) => (a.species < b.species ? -1 : a.species > b.species ? 1 : 0));
// Champions: the common-items list above is Scarlet/Violet's, and eight of its items
// (Assault Vest, Choice Band, Booster Energy, ...) are not in Champions; the items of the
// legal sets are, by construction. Mega stones are left out of the replacements: the
// validator lets any Pokemon hold any stone, where only its own species can use it.
if (champions) ITEMS = [...new Set(pool.map(s => s.item).filter(it => it && !dex.items.get(it).megaStone))].sort();
const teams = [];
let tried = 0;
while (pool.length >= 6 && teams.length < n && tried < n * 50) {
	tried++;
	const picked = [], nums = new Set(), items = new Set();
	for (let guard = 0; picked.length < 6 && guard < 200; guard++) {
		const s = JSON.parse(JSON.stringify(pool[prng.random(pool.length)]));
		const num = dex.species.get(s.species).num;
		if (nums.has(num)) continue;
		if (items.has(s.item)) {
			const free = ITEMS.filter(it => !items.has(it));
			s.item = free[prng.random(free.length)];
		}
		nums.add(num); items.add(s.item); picked.push(s);
	}
	if (picked.length < 6) continue;
	const probs = validator.validateTeam(picked);
	if (probs && probs.length) continue;
	teams.push({text: ps.Teams.export(picked), packed: ps.Teams.pack(picked)});
}
process.stdout.write(JSON.stringify({format: format.id, generator: GENERATOR, sets: pool.length, tried, teams}));
