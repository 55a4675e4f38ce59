#!/usr/bin/env bash
# Issue 27 item 4, regime (c) a third time: the full league for 60 minutes from scratch,
# alone on the box, with the settings of experiments/issue27_league_1206, after the fix
# the hour of experiments/issue27_league_1207 called for (622116d: a main exploiter, bound
# to one team, is no portfolio reference) and with the main learner held while the run
# waits for an exploiter (6544692).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/league_1207b} bash experiments/issue27_league_1206/run.sh
