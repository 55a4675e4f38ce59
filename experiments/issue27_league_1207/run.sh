#!/usr/bin/env bash
# Issue 27 item 4, regime (c) again after the two fixes to the league's reading of a
# sparse payoff table (2b141d1: the Nash portfolio; 08fe309: selection and the report):
# the full league for 60 minutes from scratch, alone on the box, with the settings of
# experiments/issue27_league_1206 (the regimes screen's) and otherwise the default experiment.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/league_1207} bash experiments/issue27_league_1206/run.sh
