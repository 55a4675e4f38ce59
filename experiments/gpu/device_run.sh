#!/usr/bin/env bash
# The GPU measurements of issue 14, in one command on a lent machine (one NVIDIA H200 or
# H100, 16 cores, python3 = 3.12 with torch 2.11+cu130, no network, no Node.js):
#
#   bash experiments/gpu/device_run.sh        # from the repository root, $OUT set
#
# It needs the ignored folder .devcarry/ (made by experiments/gpu/make_carry.sh, carried
# with the run): wheels of the runtime dependencies the image lacks, Node.js (xz) and the
# project's node_modules (tar.xz). Stages, each bounded by `timeout`, none stopping the
# later ones (no `set -e`), the elapsed time printed at each:
#   0. setup: wheels -> /tmp/site (PYTHONPATH), node -> /tmp/node/bin (PATH), node_modules
#      -> the repository root; nvidia-smi, versions, cores, memory, /dev/shm
#   1. the CUDA tests (the 4 that skip without CUDA), unit ones first  -> pytest_cuda.txt
#   2. tools.bench learner / infer on CUDA, and the same on CPU (short) -> bench_*.json
#   3. a reg_c training run on the GPU and the 16 cores, its length whatever the budget
#      leaves after reserving stage 4 (~2.5-3 min of training)       -> run_*.{json,txt,yaml}
#   4. the two-minute GPU smoke test (tests/system), with the time left -> pytest_cuda.txt
# nvidia-smi samples utilization and memory every 2 s from stage 1 to the end
# (nvidia_smi.csv; the stage start times in device_log.txt are UTC, as its timestamps).
#
# Files in $OUT (8 at most come back): device_log.txt (this script's whole output: setup,
# nvidia-smi, versions, stage times, benches' stderr), pytest_cuda.txt, bench_learner.json,
# bench_infer.json, nvidia_smi.csv, run_summary.json, run_log.txt (run.log tail, stderr
# tail, per-process CPU samples), run_config.yaml.
#
# Budget: everything ends within DEVICE_RUN_BUDGET_S (default 505 s = 8 min 25 s) of the
# script's start; the setup takes ~30-90 s of it.
#
# Switches (environment): DEVICE_RUN_BENCH=0 skips stage 2, DEVICE_RUN_SMOKE=0 stage 4;
# DEVICE_RUN_SWEEP=6,7,8 a shard sweep before the training (stage 2b, tools.bench sweep
# --shards; DEVICE_RUN_SWEEP_S its seconds a row); DEVICE_RUN_UNIT the CUDA tests of
# stage 1 (space-separated), DEVICE_RUN_UNIT_CAP their
# time cap (default 120 s); DEVICE_RUN_ACCEL=0 skips compiling league.accel (stage 0e, in
# the background during stage 1); DEVICE_RUN_MAX_UPDATES=N
# stops stage 3 at N learner updates (run.max_updates; the wall cap DEVICE_RUN_TRAIN_CAP,
# default 330 s, still holds); DEVICE_RUN_KEEP_CKPT=1 exports the final network
# (tools.export --fp32) to final_net.pt; DEVICE_RUN_TRAIN_ARGS adds overrides.
#
# DEVICE_RUN_DRY=1: a rehearsal on a CPU box (no CUDA, any Python with the project's
# dependencies as PYTHON): the wheels are installed for CPython 3.12 into a scratch
# folder but not imported (the interpreter here may be another version), the benches run
# on CPU with fewer updates, the training runs ~40 s on CPU with 2 shards, the CUDA tests
# run and are skipped.
set -u -o pipefail

ROOT=$PWD
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T0=$(date +%s)
DRY=${DEVICE_RUN_DRY:-0}
BUDGET_S=${DEVICE_RUN_BUDGET_S:-505}
CARRY=${DEVICE_CARRY:-$ROOT/.devcarry}
PY=${PYTHON:-python3}
OUT=${OUT:-/tmp/device_run_out}
SITE=${DEVICE_SITE:-/tmp/site}
NODE_DIR=${DEVICE_NODE_DIR:-/tmp/node}
RUN_DIR=${DEVICE_RUN_DIR:-/tmp/gpurun}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/device_log.txt") 2>&1

el() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( BUDGET_S - $(date +%s) + T0 )); }
stage() { echo; echo "[+$(el)s $(date -u '+%Y/%m/%d %H:%M:%S') UTC, $(left)s left] ==== $*"; }
done_() { echo "[+$(el)s] ---- $1: exit code $2"; }
min() { if [ "$1" -lt "$2" ]; then echo "$1"; else echo "$2"; fi; }
max() { if [ "$1" -gt "$2" ]; then echo "$1"; else echo "$2"; fi; }
# cap a stage's timeout by the budget left, less what the later stages reserve
cap() { max 5 "$(min "$1" $(( $(left) - $2 )))"; }

export PYTHONUNBUFFERED=1 HYDRA_FULL_ERROR=1 MPLBACKEND=Agg MPLCONFIGDIR=/tmp/mplconfig
export PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# nothing here may reach the network (the machine has none; say so to the libraries too)
export HF_HUB_OFFLINE=1 NO_PROXY='*'

stage "0. setup (dry=$DRY, root=$ROOT, out=$OUT, budget ${BUDGET_S}s)"
echo "carried: $(du -sh "$CARRY" 2>/dev/null | cut -f1) in $CARRY"; ls -l "$CARRY" "$CARRY/whl" 2>&1
if [ -f "$CARRY/SHA256SUMS" ]; then (cd "$CARRY" && sha256sum -c --quiet SHA256SUMS && echo "checksums OK"); fi

stage "0a. wheels -> $SITE"
rm -rf "$SITE"; mkdir -p "$SITE"
PIP_TARGET_ARGS=()
if [ "$DRY" = 1 ]; then  # install them as the GPU image would (CPython 3.12), not for this interpreter
  PIP_TARGET_ARGS=(--python-version 3.12 --implementation cp --only-binary=:all:
                   --platform manylinux_2_28_x86_64 --platform manylinux_2_26_x86_64
                   --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64
                   --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64)
fi
PIP_TARGET=("$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir "${PIP_TARGET_ARGS[@]}"
            --target "$SITE")
timeout -k 5 "$(cap 150 300)" "${PIP_TARGET[@]}" "$CARRY"/whl/*.whl
rc=$?
done_ wheels $rc
if [ "$rc" != 0 ]; then  # one bad wheel stops pip's whole install: then each on its own
  for w in "$CARRY"/whl/*.whl; do timeout -k 5 60 "${PIP_TARGET[@]}" --upgrade "$w" || echo "FAILED: $w"; done
fi
ls "$SITE" | grep -v -e dist-info -e '^bin$' | tr '\n' ' '; echo
if [ "$DRY" = 1 ]; then export PYTHONPATH=$ROOT; else export PYTHONPATH=$SITE:$ROOT; fi

unxz_to() {  # unxz_to FILE.xz DEST: with xz if the image has it, else Python's lzma
  if command -v xz >/dev/null; then xz -dc "$1" > "$2"
  else "$PY" -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"), 1 << 20)' "$1" "$2"; fi
}
untar_xz() {  # untar_xz FILE.tar.xz DIR
  if command -v xz >/dev/null; then tar -xJf "$1" -C "$2"
  else "$PY" -c 'import sys, tarfile; tarfile.open(sys.argv[1], "r:xz").extractall(sys.argv[2])' "$1" "$2"; fi
}

stage "0b. node -> $NODE_DIR/bin"
mkdir -p "$NODE_DIR/bin"
export -f unxz_to; export PY
timeout -k 5 "$(cap 60 300)" bash -c "unxz_to '$(ls "$CARRY"/node-*.xz | head -1)' '$NODE_DIR/bin/node'"
done_ node $?
chmod +x "$NODE_DIR/bin/node"
export PATH=$NODE_DIR/bin:$PATH
echo "node: $(command -v node) $(node --version 2>&1)"

stage "0c. node_modules -> $ROOT"
if [ -f node_modules/pokemon-showdown/dist/sim/index.js ] && [ ! -L node_modules ]; then
  echo "node_modules already here: kept"
else
  [ -L node_modules ] && rm -f node_modules   # a link that travelled without its target
  export -f untar_xz
  timeout -k 5 "$(cap 90 300)" bash -c "untar_xz '$CARRY/node_modules.tar.xz' '$ROOT'"
  done_ node_modules $?
fi
ls node_modules/pokemon-showdown/dist/sim/index.js 2>&1
echo "pokemon-showdown $(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' node_modules/pokemon-showdown/package.json | head -1)"

stage "0d. the machine"
uname -a; nproc; free -g; df -h /dev/shm /tmp "$ROOT" 2>&1
nvidia-smi 2>&1 | head -30
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1
echo "python3: $(command -v "$PY") $("$PY" --version 2>&1)"
timeout -k 5 "$(cap 90 300)" "$PY" - <<'EOF'
import importlib, sys, time
t = time.perf_counter()
import torch
print(f"torch {torch.__version__} (cuda {torch.version.cuda}, cudnn {torch.backends.cudnn.version()}); "
      f"import {time.perf_counter() - t:.1f}s; threads {torch.get_num_threads()}")
if torch.cuda.is_available():
    t = time.perf_counter()
    torch.zeros(1, device="cuda")
    p = torch.cuda.get_device_properties(0)
    print(f"cuda: {torch.cuda.get_device_name(0)}, {p.total_memory / 2**30:.1f} GiB, {p.multi_processor_count} SMs, "
          f"capability {p.major}.{p.minor}, bf16 {torch.cuda.is_bf16_supported()}, init {time.perf_counter() - t:.1f}s")
else:
    print("cuda: not available")
for name in ("numpy", "scipy", "msgpack", "zmq", "orjson", "websockets", "poke_env", "hydra", "omegaconf", "antlr4",
             "openskill", "gymnasium", "pettingzoo", "tensorboard", "rich", "psutil", "matplotlib", "yaml",
             "requests", "tabulate", "cloudpickle", "typing_extensions", "packaging", "pytest", "pytest_timeout"):
    try:
        m = importlib.import_module(name)
        print(f"  {name:18s} {getattr(m, '__version__', '?'):12s} {m.__file__}")
    except Exception as e:  # noqa: BLE001 - report and go on
        print(f"  {name:18s} MISSING: {e!r}")
import league.run, league.sim.sim_proc, league.learn.learner_proc, tools.bench  # noqa: E401,F401 - the project imports
print("project imports OK")
EOF
done_ versions $?

# GPU utilization and memory every 2 s, in the background, until the end
nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory,memory.used,power.draw,clocks.sm \
  --format=csv -l 2 > "$OUT/nvidia_smi.csv" 2>&1 &
SMI_PID=$!

# ------------------------------------------------------------------ 1. CUDA tests (unit)
# The tests that skip without CUDA: tests/unit/test_gpu_path.py (a learner step under
# float16 and bfloat16 AMP; GPU inference against CPU) and tests/system/test_run.py's
# two-minute GPU smoke run (stage 4). test_config.py's cuda cases monkeypatch
# torch.cuda.is_available and run everywhere.
read -r -a CUDA_UNIT <<< "${DEVICE_RUN_UNIT:-tests/unit/test_gpu_path.py::test_learner_step_under_amp_on_cuda tests/unit/test_gpu_path.py::test_gpu_inference_gives_the_cpu_distribution}"
CUDA_SYSTEM=(tests/system/test_run.py::test_two_minute_smoke_on_the_gpu)
SMOKE=${DEVICE_RUN_SMOKE:-1}                        # 0: no stage 4
RESERVE_SMOKE=${DEVICE_RUN_RESERVE_SMOKE:-170}; [ "$SMOKE" = 0 ] && RESERVE_SMOKE=0   # stage 4: 2 min of run + its start, stop and checks
MIN_TRAIN=100                                       # stage 3 at least (its start and stop ~35 s of it)
RESERVE=$(( RESERVE_SMOKE + MIN_TRAIN + 15 ))       # what stages 3 and 4 and the copies keep back

# the simulator's compiled modules (league.accel, what `make setup` builds): compiled in the
# background while the unit tests run (they do not need them), waited for before stage 3;
# a machine that cannot compile (no cc, no Python headers) runs plain Python and says so
if [ "${DEVICE_RUN_ACCEL:-1}" != 0 ]; then
  stage "0e. python -m league.accel build --optional (background, timeout 150s)"
  timeout -k 5 150 "$PY" -m league.accel build --optional > /tmp/accel.out 2>&1 &
  ACCEL_PID=$!
else
  ACCEL_PID=
fi

stage "1. CUDA unit tests"
timeout -s INT -k 10 "$(cap "${DEVICE_RUN_UNIT_CAP:-120}" $(( RESERVE + 60 )))" "$PY" -m pytest -p no:cacheprovider -rA \
  "${CUDA_UNIT[@]}" 2>&1 | tee "$OUT/pytest_cuda.txt"
done_ "unit CUDA tests" $?

# ------------------------------------------------------------------ 2. benches
# learner: Learner.step at the reg_c sizes (batch 16), fp32 and, on CUDA, AMP fp16/bf16,
# alpha < 1 and alpha = 1; infer: the acting forward (T = 1) at batches 1..64. One torch
# thread, as the learner and simulator processes use. CPU: the same, fewer updates, for
# the ratio on this machine.
LB_UPDATES=30; CPU_LB_UPDATES=10
if [ "$DRY" = 1 ]; then DEV=cpu; LB_UPDATES=5; CPU_LB_UPDATES=5; else DEV=cuda; fi
bench() {  # bench NAME CAP RESERVE ARGS...: the JSON (last stdout line) -> /tmp/bench_NAME.json
  local name=$1 t; t=$(cap "$2" "$3"); shift 3
  stage "2. bench $name: python -m tools.bench $* (timeout ${t}s)"
  timeout -k 5 "$t" "$PY" -m tools.bench "$@" > "/tmp/bench_$name.out" 2> "/tmp/bench_$name.err"
  local rc=$?
  tail -n 20 "/tmp/bench_$name.err"; tail -n 1 "/tmp/bench_$name.out"
  done_ "bench $name" $rc
  echo "$rc" > "/tmp/bench_$name.rc"
}
rm -f /tmp/bench_*
if [ "${DEVICE_RUN_BENCH:-1}" != 0 ]; then   # DEVICE_RUN_BENCH=0: no stage 2
bench "learner_$DEV" 150 $(( RESERVE + 40 )) learner --device "$DEV" --updates "$LB_UPDATES"
bench "infer_$DEV" 60 $(( RESERVE + 30 )) infer --device "$DEV"
if [ "$DEV" != cpu ]; then
  bench infer_cpu 45 $(( RESERVE + 15 )) infer --device cpu
  bench learner_cpu 60 "$RESERVE" learner --device cpu --updates "$CPU_LB_UPDATES"
fi
combine() {  # combine OUTFILE KIND DEVICE...: {device: JSON or {error, rc, stderr tail}}
  "$PY" - "$@" <<'EOF'
import json, sys
out, kind, devices = sys.argv[1], sys.argv[2], dict.fromkeys(sys.argv[3:])
res = {}
for dev in devices:
    name = f"/tmp/bench_{kind}_{dev}"
    try:
        res[dev] = json.loads(open(name + ".out").read().strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001
        try:
            err = open(name + ".err").read()[-3000:]
        except OSError:
            err = ""
        try:
            rc = open(name + ".rc").read().strip()
        except OSError:
            rc = "not run"
        res[dev] = {"error": repr(e), "rc": rc, "stderr_tail": err}
json.dump(res, open(out, "w"), indent=1)
print(f"{out}: {', '.join(res)}")
EOF
}
combine "$OUT/bench_learner.json" learner "$DEV" cpu
combine "$OUT/bench_infer.json" infer "$DEV" cpu
fi

# ------------------------------------------------------------------ 2b. shard sweep
# DEVICE_RUN_SWEEP=6,7,8: tools.bench sweep over those shard counts (one worker each, 24
# battles a worker, inference batch 1, learner batch 16; DEVICE_RUN_SWEEP_S seconds each
# after its 20-s warm-up, default 40; each row also pays its run's start, ~70 s on the GPU
# machine with six shards compiling) -> bench_sweep.json. With the benches of stage 2 on,
# $OUT would hold more than the 8 files that come back: run it with DEVICE_RUN_BENCH=0.
if [ -n "${DEVICE_RUN_SWEEP:-}" ]; then
  SW_T=$(cap $(( 400 )) $(( RESERVE + 30 )))
  stage "2b. python -m tools.bench sweep --shards $DEVICE_RUN_SWEEP (timeout ${SW_T}s)"
  timeout -s INT -k 10 "$SW_T" "$PY" -m tools.bench sweep --shards "$DEVICE_RUN_SWEEP" --servers 1 --concurrency 24 \
    --infer-batch 1 --batch-size 16 --seconds "${DEVICE_RUN_SWEEP_S:-40}" > /tmp/bench_sweep.out 2> /tmp/bench_sweep.err
  rc=$?
  grep -E "^shards=" /tmp/bench_sweep.out; tail -n 5 /tmp/bench_sweep.err
  tail -n 1 /tmp/bench_sweep.out > "$OUT/bench_sweep.json"
  done_ "shard sweep" $rc
fi

# ------------------------------------------------------------------ 3. reg_c training
# Sizing for 16 cores. Measured per battle on the stream backend (experiments/stream_backend,
# reg_c training): Node ~28-36 CPU-ms (one stream worker = one single-threaded Node
# process), the simulator's Python ~29-36 CPU-ms (one process, one event loop: poke-env,
# observations, masks; its forwards ~7 ms of it on CPU, less on the GPU), the learner
# ~19 CPU-ms on CPU (on the GPU mostly off the cores). A shard is one simulator process
# with its own `sim.servers` workers, so with Python ~ Node per battle one worker per
# shard keeps both busy (two would leave one idle half the time): a shard is ~2 cores.
# 6 shards x 2 = 12 cores, + the learner process ~1 (it drives the GPU) + the coordinator
# ~0.2, leaves ~3 of 16 for V8's GC threads, shard 0's evaluation games (it alone plays
# them) and this script's samplers; 7 shards (15 cores) would oversubscribe. Measured
# since (h100_run4): a shard's Python and Node take turns, ~0.8 core each, and 6 shards
# used 67 % of the 16 cores; DEVICE_RUN_SHARDS=7 or 8 is the next thing to try. 24 battles
# per worker (reg_c) gave ~23 decisions per forward on the stream backend. n_slots: 128
# (~21 per shard: each shard owns n_slots / shards; 64 would leave 10 for 24 battles in
# flight); 128 slots are 128 x 96 steps x ~13.6 kB = ~170 MB of shared memory. The
# learner keeps reg_c's batch 16 so its figures compare with the CPU hours; the
# simulator's forwards go to the GPU too (sim.device=cuda, what auto picks there).
if [ -n "$ACCEL_PID" ]; then
  stage "3a. waiting for league.accel"
  wait "$ACCEL_PID"; done_ accel $?
  tail -n 5 /tmp/accel.out; "$PY" -m league.accel status 2>&1 | tr -d '\n '; echo
fi
if [ "$DRY" = 1 ]; then
  TRAIN_DEV=(learner.device=cpu sim.device=cpu); SHARDS=${DEVICE_RUN_SHARDS:-2}
else
  TRAIN_DEV=(learner.device=cuda "sim.device=${DEVICE_RUN_SIM_DEVICE:-cuda}"); SHARDS=${DEVICE_RUN_SHARDS:-6}
fi
START_STOP_S=${DEVICE_RUN_START_STOP_S:-35}   # outside run.max_minutes: imports, team checks, the final stop (~23 s in the rehearsal)
# the training's wall time: what is left less stage 4's reserve and 15 s to copy its files, at most 330 s
TRAIN_WALL=$(min "${DEVICE_RUN_TRAIN_CAP:-330}" $(( $(left) - RESERVE_SMOKE - 15 )))
if [ "$DRY" = 1 ]; then TRAIN_WALL=$(min "$TRAIN_WALL" 75); fi   # ~40 s of training
TRAIN_WALL=$(max 80 "$TRAIN_WALL")
MAX_MIN=$("$PY" -c "print(round(max(0.5, ($TRAIN_WALL - $START_STOP_S) / 60), 2))")
TRAIN_ARGS=(experiment=reg_c "run.max_minutes=$MAX_MIN" "run.max_updates=${DEVICE_RUN_MAX_UPDATES:-0}" run.console=plain
            run.progress_every_s=10 "${TRAIN_DEV[@]}" "sim.shards=$SHARDS" sim.servers=1
            sim.concurrency=24 sim.n_slots=128 "hydra.run.dir=$RUN_DIR")
# extra overrides from the caller, e.g. DEVICE_RUN_TRAIN_ARGS="learner.batch_size=32"
read -r -a EXTRA <<< "${DEVICE_RUN_TRAIN_ARGS:-}"
stage "3. training: python -m league.run ${TRAIN_ARGS[*]} ${EXTRA[*]} (timeout $(( TRAIN_WALL + 20 ))s, SIGINT)"
rm -rf "$RUN_DIR"
# per-process CPU by role every 10 s while it runs (experiments/gpu/cpu_sampler.py)
"$PY" "$HERE/cpu_sampler.py" "$RUN_DIR" 10 > /tmp/cpu_samples.txt 2>&1 &
CPU_PID=$!
timeout -s INT -k 30 $(( TRAIN_WALL + 20 )) "$PY" -m league.run "${TRAIN_ARGS[@]}" "${EXTRA[@]}" \
  > /tmp/train.out 2> /tmp/train.err &
TRAIN_PID=$!
# one look at the GPU's processes once the run is going
( sleep "$(min 90 $(( TRAIN_WALL / 2 )))"; echo "---- nvidia-smi during training"; nvidia-smi 2>&1 | tail -n 25 ) &
SNAP_PID=$!
wait "$TRAIN_PID"
TRAIN_RC=$?
kill "$CPU_PID" "$SNAP_PID" 2>/dev/null
done_ training $TRAIN_RC
grep -E "\| (updates|battles)" /tmp/train.out | tail -n 4; tail -n 1 /tmp/train.out; tail -n 15 /tmp/train.err

stage "3b. the run's files -> $OUT"
if [ -f "$RUN_DIR/summary.json" ]; then cp "$RUN_DIR/summary.json" "$OUT/run_summary.json"
else  # no summary.json (killed?): the last stdout line if it is the JSON, else the exit code
  tail -n 1 /tmp/train.out | "$PY" -c "import json,sys; json.dump(json.loads(sys.stdin.read()), sys.stdout)" \
    > "$OUT/run_summary.json" 2>/dev/null || echo "{\"error\": \"no summary\", \"rc\": $TRAIN_RC}" > "$OUT/run_summary.json"
fi
{
  echo "# python -m league.run ${TRAIN_ARGS[*]} ${EXTRA[*]}"
  echo "# exit code $TRAIN_RC; training wall cap ${TRAIN_WALL}s; run.max_minutes=$MAX_MIN"
  echo "# ==== run.log (last 400 lines)"; tail -n 400 "$RUN_DIR/run.log" 2>&1
  echo "# ==== stderr (last 80 lines)"; tail -n 80 /tmp/train.err
  echo "# ==== CPU by role, every 10 s (% of one core; experiments/gpu/cpu_sampler.py)"; cat /tmp/cpu_samples.txt
  echo "# ==== run dir"; (cd "$RUN_DIR" 2>/dev/null && ls -la . checkpoints shards/* 2>&1 | head -60)
} > "$OUT/run_log.txt" 2>&1
{
  echo "# $RUN_DIR/.hydra/config.yaml (overrides at the end)"
  cat "$RUN_DIR/.hydra/config.yaml" 2>&1
  echo "# overrides:"; sed 's/^/#   /' "$RUN_DIR/.hydra/overrides.yaml" 2>&1
} > "$OUT/run_config.yaml"
if [ "${DEVICE_RUN_KEEP_CKPT:-0}" = 1 ]; then   # the run's final checkpoint, for evaluation at home
  C=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" "$RUN_DIR/summary.json" 2>/dev/null)
  # the policy alone, float32 (tools.export): the whole checkpoint (~23 MB with the target,
  # regularisation networks and Adam's moments) is over $OUT's 16 MiB a file
  timeout -k 5 60 "$PY" -m tools.export "$C" "$OUT/final_net.pt" --fp32 --note "device_run.sh on $(hostname)" 2>&1 | tail -n 1
fi

# ------------------------------------------------------------------ 4. the GPU smoke test
SMOKE_T=$(( $(left) - 8 )); [ "$SMOKE" = 0 ] && SMOKE_T=0
stage "4. CUDA system test (the two-minute GPU smoke run; timeout ${SMOKE_T}s)"
if [ "$SMOKE_T" -ge 60 ]; then
  { echo; echo "==== system"; } >> "$OUT/pytest_cuda.txt"
  timeout -s INT -k 5 "$SMOKE_T" "$PY" -m pytest -p no:cacheprovider -rA "${CUDA_SYSTEM[@]}" 2>&1 \
    | tee -a "$OUT/pytest_cuda.txt"
  done_ "system CUDA test" $?
else
  echo "skipped: ${SMOKE_T}s left" | tee -a "$OUT/pytest_cuda.txt"
fi

kill "$SMI_PID" 2>/dev/null
stage "done"
ls -la "$OUT"
sleep 1  # let tee write the last lines
