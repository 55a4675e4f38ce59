// Validate many teams with Showdown's own validator in one Node process.
// usage: node validate_teams.js PACKAGE_DIR FORMAT_ID  < [{"name": ..., "text": ...}, ...]
// prints one JSON object: {"format": ..., "results": [{"name", "problems": [...], "packed"}]}
'use strict';
const path = require('path');
const [pkgDir, formatId] = process.argv.slice(2);
const ps = require(path.resolve(pkgDir, 'dist', 'sim'));
const format = ps.Dex.formats.get(formatId);
if (!format.exists) {
	process.stdout.write(JSON.stringify({error: `unknown format '${formatId}' in pokemon-showdown`}));
	process.exit(0);
}
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', chunk => { input += chunk; });
process.stdin.on('end', () => {
	const teams = JSON.parse(input);
	const validator = ps.TeamValidator.get(formatId);
	const results = teams.map(({name, text}) => {
		let team = null;
		try {
			team = ps.Teams.import(text);
		} catch (e) {
			return {name, problems: [`could not parse: ${e.message}`], packed: null};
		}
		if (!team || !team.length) return {name, problems: ['could not parse any Pokemon from the file'], packed: null};
		const problems = validator.validateTeam(team) || [];
		return {name, problems, packed: problems.length ? null : ps.Teams.pack(team)};
	});
	process.stdout.write(JSON.stringify({format: format.id, results}));
});
