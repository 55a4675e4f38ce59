// List Showdown's formats with what league/showdown/formats.py checks.
// usage: node formats.js PACKAGE_DIR
// prints one JSON object: {"formats": [{"id", "name", "mod", "gameType", "team", "gen",
//   "teamPreview", "pickedTeamSize", "minTeamSize", "maxTeamSize", "adjustLevel", "levelClauseMod", "openTeamSheets"}, ...]}
// The rule table (team preview, team sizes, level) is read only for gen 9 doubles
// formats: the ones the league might play.
'use strict';
const path = require('path');
const [pkgDir] = process.argv.slice(2);
const ps = require(path.resolve(pkgDir, 'dist', 'sim'));
const formats = [];
for (const f of ps.Dex.formats.all()) {
  if (f.effectType !== 'Format') continue;
  const row = {id: f.id, name: f.name, mod: f.mod, gameType: f.gameType || 'singles', team: f.team || null};
  const gen = /^gen(\d)/.exec(f.id); // every format id starts with its generation, one digit ("gen92v2doubles": 9)
  row.gen = gen ? Number(gen[1]) : null;
  if (row.gen === 9 && row.gameType === 'doubles') {
    try {
      const rt = ps.Dex.formats.getRuleTable(f);
      Object.assign(row, {teamPreview: rt.has('teampreview'), pickedTeamSize: rt.pickedTeamSize,
        minTeamSize: rt.minTeamSize, maxTeamSize: rt.maxTeamSize, adjustLevel: rt.adjustLevel,
        levelClauseMod: rt.has('levelclausemod'), openTeamSheets: rt.has('openteamsheets')});
    } catch (e) {
      row.error = String(e && e.message || e);
    }
  }
  formats.push(row);
}
process.stdout.write(JSON.stringify({formats}));
