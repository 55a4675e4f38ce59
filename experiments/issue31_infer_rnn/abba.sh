#!/bin/bash
# ABBA: after (main), before (worktree), before, after
cd /work/main
run() { (cd $1 && .venv/bin/python -m tools.bench backends --seconds 60 --train-seconds 90 > /tmp/bk/$2.out 2> /tmp/bk/$2.err; tail -1 /tmp/bk/$2.out > /tmp/bk/$2.json); }
run /work/main after_1
run /tmp/wt_before before_1
run /tmp/wt_before before_2
run /work/main after_2
echo done > /tmp/bk/DONE
