#!/usr/bin/env bash
# Replays without open team sheets (issue 32): each side's sheet rebuilt from its own log.
# Uses the battles recorded for experiments/replays_partial (runs/replays_partial/{own,A,B}:
# `bash experiments/replays_partial/run.sh a` and `b` make them).
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/replays_no_sheets
R=runs/replays_no_sheets
PY=.venv/bin/python
mkdir -p $R
# (a) the 1,000 own battles without sheets: every label checked against the recorded choice
$PY -m tools.bc validate-replays runs/replays_partial/own --no-sheets | tail -1 > $E/own_validate.json
rm -rf $R/own_replays $R/own_data
$PY -m tools.bc as-replays runs/replays_partial/own --out $R/own_replays --no-sheets | tail -1 > $E/own_as_replays.json
$PY -m tools.bc parse-replays $R/own_replays --out $R/own_data --workers 2 --quiet | tail -1 > $E/own_parse.json
# the two public replays with their |showteam| lines removed
rm -rf $R/public_closed $R/public_data; mkdir -p $R/public_closed
for f in ../shared/replays/*.json; do
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['log']='\n'.join(l for l in d['log'].split('\n') if not l.startswith('|showteam|')); json.dump(d, open(sys.argv[2],'w'))" "$f" "$R/public_closed/$(basename "$f")"
done
$PY -m tools.bc parse-replays $R/public_closed --out $R/public_data | tail -1 > $E/public_parse.json
# (b) BC from the 2,000 maxdamage battles as replays without sheets, evaluated on B (500
# battles of the 12 shipped teams, their own logs), beside the figures with sheets and from logs
rm -rf $R/A_replays $R/A_human $R/bc_replays
$PY -m tools.bc as-replays runs/replays_partial/A --out $R/A_replays --no-sheets | tail -1 > $E/A_as_replays.json
$PY -m tools.bc parse-replays $R/A_replays --out $R/A_human --workers 2 --quiet | tail -1 > $E/A_parse.json
$PY -m tools.bc train $R/A_human --out $R/bc_replays | tail -1 > $E/train.json
$PY -m tools.bc eval $R/bc_replays/bc.pt runs/replays_partial/B | tail -1 > $E/eval.json
