#!/usr/bin/env bash
# more_games.sh for the sampling policy: 400 more sampling games a job (seeds 1 and 2).
MODE=sampling exec "$(dirname "$0")/more_games.sh" "$@"
