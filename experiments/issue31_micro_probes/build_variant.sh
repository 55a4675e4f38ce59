#!/bin/bash
# Build our compiled modules (league.accel) with other Cython directives / C flags and
# keep the builds in /tmp/var/NAME (league/accel/__init__.py is restored; `make accel`
# --force rebuilds the default). Then alternate: cp /tmp/var/NAME/*.so league/battle/;
# python experiments/issue31_micro_probes/decision_us.py
#   build_variant.sh NAME 'DIRECTIVES dict' "['-O2']"
set -e
cd "$(dirname "$0")/../.."
cp league/accel/__init__.py /tmp/accel_init.orig
python3 - "$2" "$3" <<'PY'
import sys,re
p='league/accel/__init__.py'; s=open(p).read()
s=s.replace('DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}', 'DIRECTIVES = '+sys.argv[1])
s=s.replace("extra_compile_args=['-O2']", "extra_compile_args="+sys.argv[2])
open(p,'w').write(s)
PY
.venv/bin/python -c "from league import accel; accel.build(modules=list(accel.MODULES), force=True)" 2>&1 | tail -1
cp /tmp/accel_init.orig league/accel/__init__.py
mkdir -p /tmp/var/$1; cp league/battle/*.so /tmp/var/$1/
