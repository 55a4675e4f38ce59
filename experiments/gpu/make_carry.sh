#!/usr/bin/env bash
# Build .devcarry/ (ignored: /.devcarry/ in .git/info/exclude), what device_run.sh needs on
# the GPU machine beside the repository: wheels for CPython 3.12 (manylinux x86-64) of the
# runtime dependencies its image lacks, Node.js (xz) and node_modules (tar.xz).
#   bash experiments/gpu/make_carry.sh        # from the repository root; needs pip's index, xz, node
# The image (workplace 'cuda', python3 3.12) already has: numpy, scipy, msgpack, tensorboard,
# rich, psutil, matplotlib, pyyaml, requests, tabulate, packaging, cloudpickle,
# typing-extensions, pytest, pytest-timeout, torch. Versions: those of this project's .venv.
set -eu -o pipefail
D=.devcarry
PY=${PYTHON:-python3}
mkdir -p "$D/whl"
PLAT=(--python-version 3.12 --implementation cp --only-binary=:all: --platform manylinux_2_28_x86_64
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
# poke-env needs gymnasium (==1.3.0), pettingzoo, orjson, websockets (==16.1.1), requests,
# tabulate; gymnasium needs farama-notifications; hydra-core needs omegaconf and
# antlr4-python3-runtime 4.9.* (sdist only: built here, pure Python)
for pkg in poke-env==0.16.1 gymnasium==1.3.0 pettingzoo==1.27.0 farama-notifications==0.0.6 pyzmq==27.3.0 \
           hydra-core==1.3.8 omegaconf==2.3.1 orjson==3.13.0 openskill==6.2.0 websockets==16.1.1; do
  "$PY" -m pip download -q --no-deps "${PLAT[@]}" -d "$D/whl" "$pkg"
done
"$PY" -m pip wheel -q --no-deps -w "$D/whl" antlr4-python3-runtime==4.9.3
for w in "$D"/whl/*.whl; do
  echo "$(basename "$w"): $(unzip -p "$w" '*.dist-info/METADATA' | grep '^Requires-Dist' | grep -v 'extra ==' \
    | sed 's/Requires-Dist: //' | tr '\n' ';')"
done
# Node.js: the official build (dynamically linked to glibc >= 2.28 and libstdc++ only), 99 MB -> ~24 MB
V=$(node --version)
xz -9 -T2 -c "$(command -v node)" > "$D/node-$V-linux-x64.xz"
# node_modules: what the stream workers and the format/team scripts load (pokemon-showdown's
# package.json, launcher and dist/{sim,data,lib,config}, its one runtime dependency
# ts-chacha20), less source maps and older generations' random sets: ~1.9 MB (the whole
# node_modules, ~9.5 MB, no longer fits the 64 MiB a call carries beside the tree)
PS=node_modules/pokemon-showdown
tar -C "$(dirname "$(readlink -f node_modules)")" -cf - --exclude='*.js.map' \
  --exclude='dist/data/random-battles/gen[1-8]*' node_modules/ts-chacha20 "$PS/package.json" \
  "$PS/pokemon-showdown" "$PS/dist/sim" "$PS/dist/data" "$PS/dist/lib" "$PS/dist/config" \
  | xz -9 -T2 > "$D/node_modules.tar.xz"
(cd "$D" && find . -type f ! -name SHA256SUMS | sort | xargs sha256sum > SHA256SUMS)
du -b "$D"/* "$D"/whl/* | sort -n
du -sh "$D"
