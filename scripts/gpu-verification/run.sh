#!/usr/bin/env bash
# Real-GPU verification of gpuq (docs/gpu-verification.md). Prints everything to paste there.
#   scripts/gpu-verification/run.sh            on a machine with an NVIDIA GPU, JAX and PyTorch
#   scripts/gpu-verification/run.sh --dry-run  anywhere: emulated GPUs, proves the plumbing
# Java: $JAVA, else target/gpu-verify/jre (from pack.sh), else ./jre/bin/java, else java on PATH.
# Jar:  $GPUQ_JAR, else target/gpu-verify (from pack.sh), else target/gpuq-*.jar.
# Each phase runs under its own timeout; the whole run is meant to end within ~9 minutes.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SELF="$HERE/run.sh"

# ---- shared state (the phases run as child processes of this script) -----------------------
if [[ ${1:-} != --phase ]]; then
  DRY=0
  [[ ${1:-} == --dry-run ]] && DRY=1
  export DRY
  export WORK=$(mktemp -d /tmp/gpuq-verify.XXXXXX)
  # a free port unless one is given: other services may hold the usual ones
  export GQ_PORT=${GQ_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
  export GQ_URL="http://127.0.0.1:$GQ_PORT"
  export GQ_TOKEN="verify-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
  export PY=$(command -v python3)
  export PYTHONUNBUFFERED=1
  : >"$WORK/results"
fi
GQ() { "$PY" "$HERE/gq.py" "$@"; }
section() { printf '\n========== %s ==========\n' "$*"; }
record() { echo "$1 $2" | tee -a "$WORK/results"; }
# check NAME COMMAND...: runs it, records PASS or FAIL under NAME.
check() {
  local name=$1; shift
  if "$@"; then record PASS "$name"; else record FAIL "$name"; fi
}
skip() { record SKIP "$1 (dry run)"; }
smi_gpus() { nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.used --format=csv,noheader,nounits; }
smi_apps() { nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits; }
# In a dry run the "nvidia-smi" figures of a process are its resident memory, as the emulation does.
rss_apps() { for pid in "$@"; do echo "$pid, $(( $(awk '/VmRSS/ {print $2}' /proc/$pid/status) / 1024 ))"; done; }
job_pids() { GQ get /api/v1/gpus | "$PY" -c 'import json,sys; print(" ".join(str(p["pid"]) for g in json.load(sys.stdin) for p in g["processes"]))'; }
show_log() { echo "--- log of $1 (last 15 lines)"; curl_log "$1" | tail -n 15; }
curl_log() { "$PY" -c 'import os,sys,urllib.request as u; r=u.Request(os.environ["GQ_URL"]+"/api/v1/jobs/"+sys.argv[1]+"/logs?tail=40", headers={"Authorization":"Bearer "+os.environ["GQ_TOKEN"]}); print(u.urlopen(r).read().decode(errors="replace"))' "$1"; }
job_json() { "$PY" -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])))' "$1"; }

# ---- phase 0: environment -----------------------------------------------------------------
phase_env() {
  section "0. Environment (dry run: $DRY)"
  uname -a; nproc; free -g | head -2 || true
  if [[ $DRY == 1 ]]; then
    skip "nvidia-smi"; skip "jax.devices()"; skip "torch.cuda.is_available()"
  else
    check "nvidia-smi -L" nvidia-smi -L
    nvidia-smi --query-gpu=driver_version,name,memory.total --format=csv || true
    nvidia-smi | grep -m1 'CUDA Version' || true
    check "jax sees a GPU" "$PY" -c 'import jax; d=jax.devices(); print(jax.__version__, d); assert d[0].platform=="gpu"'
    check "torch.cuda.is_available()" "$PY" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available()); assert torch.cuda.is_available()'
  fi
  check "java runs" "$JAVA" -version
  echo "jar: $GPUQ_JAR ($(du -h "$GPUQ_JAR" | cut -f1))"
}

# ---- phase 1: start gpuq ------------------------------------------------------------------
phase_start() {
  section "1. Start gpuq"
  local backend=nvml; [[ $DRY == 1 ]] && backend=emulated
  # setsid: gpuq outlives this phase's process and its timeout; phase 5 stops it.
  setsid "$JAVA" -jar "$GPUQ_JAR" --server.port="$GQ_PORT" --gpuq.gpu.backend=$backend \
    --gpuq.data-dir="$WORK/data" --gpuq.placement.start-spacing=500ms --gpuq.scheduler.cpu-slots=4 \
    --gpuq.auth.tokens[0].name=verify --gpuq.auth.tokens[0].token="$GQ_TOKEN" \
    --gpuq.auth.tokens[0].role=ADMIN >"$WORK/gpuq.log" 2>&1 </dev/null &
  echo $! >"$WORK/gpuq.pid"
  local started=$SECONDS
  until "$PY" -c 'import os,urllib.request as u; u.urlopen(os.environ["GQ_URL"]+"/actuator/health", timeout=2)' 2>/dev/null; do
    if ! kill -0 "$(cat "$WORK/gpuq.pid")" 2>/dev/null; then
      echo "gpuq exited; its log:"; tail -n 40 "$WORK/gpuq.log"; record FAIL "gpuq starts"; return 1
    fi
    sleep 1
  done
  echo "gpuq healthy after $((SECONDS - started)) s (pid $(cat "$WORK/gpuq.pid"))"
  record PASS "gpuq starts"
  check "health: gpu backend is $backend" GQ health $backend
}

# ---- phase 2: NVML against nvidia-smi -----------------------------------------------------
phase_gpus() {
  section "2. GET /api/v1/gpus against nvidia-smi"
  GQ get /api/v1/gpus
  if [[ $DRY == 1 ]]; then skip "GPUs match nvidia-smi"; return 0; fi
  smi_gpus | tee "$WORK/smi-gpus.csv"
  check "GPUs match nvidia-smi (uuid, name, total, used)" GQ compare-gpus "$WORK/smi-gpus.csv"
}

# Compares gpuq's processes with nvidia-smi's (or /proc in a dry run) up to 3 times, 2 s apart:
# the two read at slightly different moments while a program may still be allocating.
compare_processes() {
  local name=$1; shift
  local try
  for try in 1 2 3; do
    if [[ $DRY == 1 ]]; then rss_apps $(job_pids) >"$WORK/apps.csv"; else smi_apps >"$WORK/apps.csv"; fi
    echo "--- try $try: nvidia-smi --query-compute-apps$([[ $DRY == 1 ]] && echo ' (dry run: VmRSS)')"
    cat "$WORK/apps.csv"
    if GQ compare-procs "$WORK/apps.csv" "$@"; then record PASS "$name"; return 0; fi
    sleep 2
  done
  record FAIL "$name"
}

wait_running() {  # wait_running SECONDS COUNT ID...: until COUNT of them run (or time is up)
  local until=$((SECONDS + $1)) count=$2; shift 2
  while (( SECONDS < until )) && (( $(GQ running "$@") < count )); do sleep 1; done
}

# ---- phase 3: issue 3, 8 JAX jobs of 1/8 GPU ----------------------------------------------
phase_jax() {
  if [[ $DRY == 1 ]]; then
    section "3. (dry run) a CPU job and an emulated GPU job through the API"
    local cpu gpu
    cpu=$(GQ submit '{"name":"dry-cpu","command":["sh","-c","echo hello from a cpu job; sleep 2"],"resources":{"gpus":0},"timeout":"PT2M"}')
    gpu=$(GQ submit "$(job_json '{"name":"dry-gpu","command":["'"$PY"'","-c","import time; b=bytearray(300<<20); b[::4096]=b\"x\"*len(b[::4096]); print(\"holding 300 MiB\", flush=True); time.sleep(10)"],"framework":"generic","resources":{"gpus":1,"gpuMemory":"1GiB"},"timeout":"PT2M"}')")
    wait_running 30 1 "$gpu"; sleep 3
    compare_processes "dry: per-process figures (gpuq vs /proc)" "$gpu"
    check "metrics: per-process and per-job GPU memory" GQ prom gpuq_process_gpu_memory_used_bytes gpuq_job_gpu_memory_used_bytes
    GQ wait 60 "$cpu" "$gpu" || true
    check "dry cpu job SUCCEEDED" GQ expect "$cpu" SUCCEEDED
    check "dry gpu job SUCCEEDED" GQ expect "$gpu" SUCCEEDED
    show_log "$gpu"
    skip "naive JAX without gpuq fails"
    return 0
  fi
  section "3a. Issue 3: 8 JAX jobs of gpuFraction 0.125 through gpuq"
  local ids=() i
  for i in 1 2 3 4 5 6 7 8; do
    ids+=("$(GQ submit "$(job_json '{"name":"jax-eighth-'$i'","command":["'"$PY"'","'"$HERE"'/jax_alloc.py","0.6","20"],"framework":"jax","resources":{"gpus":1,"gpuFraction":0.125},"timeout":"PT5M"}')")")
  done
  echo "jobs: ${ids[*]}"
  wait_running 60 8 "${ids[@]}"; sleep 8   # let the later ones preallocate
  echo "running now: $(GQ running "${ids[@]}") of 8"
  compare_processes "jax: per-process figures match nvidia-smi" 
  check "metrics: per-process and per-job GPU memory" GQ prom gpuq_process_gpu_memory_used_bytes gpuq_job_gpu_memory_used_bytes
  GQ prom gpuq_gpu_memory_used_bytes gpuq_gpu_memory_reserved_bytes gpuq_job_gpu_memory_budget_bytes || true
  GQ wait 120 "${ids[@]}" | tee "$WORK/jax-wait.txt" || true
  local bad=0
  for i in "${ids[@]}"; do GQ expect "$i" SUCCEEDED || { bad=1; show_log "$i"; }; done
  if (( bad == 0 )); then record PASS "8 JAX jobs of 1/8 GPU all SUCCEEDED"; else record FAIL "8 JAX jobs of 1/8 GPU all SUCCEEDED"; fi
  show_log "${ids[0]}"
  GQ budget "${ids[0]}" >"$WORK/jax-budget"
}

phase_naive() {
  [[ $DRY == 1 ]] && return 0
  section "3b. The same 8 JAX payloads at once WITHOUT gpuq (JAX defaults: preallocate 75%)"
  local budget; budget=$(cat "$WORK/jax-budget")
  local pids=() i
  for i in 1 2 3 4 5 6 7 8; do
    env -u XLA_PYTHON_CLIENT_MEM_FRACTION -u XLA_PYTHON_CLIENT_PREALLOCATE -u XLA_PYTHON_CLIENT_ALLOCATOR \
      "$PY" "$HERE/jax_alloc.py" 0.6 20 "$budget" >"$WORK/naive-$i.log" 2>&1 &
    pids+=($!)
  done
  local failed=0 oom=0 code
  for i in 1 2 3 4 5 6 7 8; do
    code=0; wait "${pids[$((i - 1))]}" || code=$?
    if (( code != 0 )); then
      failed=$((failed + 1))
      grep -qE 'RESOURCE_EXHAUSTED|[Oo]ut of memory' "$WORK/naive-$i.log" && oom=$((oom + 1))
    fi
    echo "naive $i: exit $code"
    grep -m2 -E 'RESOURCE_EXHAUSTED|[Oo]ut of memory' "$WORK/naive-$i.log" | cut -c1-300 || true
  done
  echo "naive: $failed of 8 failed, $oom of them with a GPU out-of-memory message"
  if (( oom >= 5 )); then record PASS "naive: most (>=5) of 8 die of OOM ($oom)"; else record FAIL "naive: most (>=5) of 8 die of OOM ($oom)"; fi
}

# ---- phase 4: issue 4, a PyTorch job outgrows its budget next to a neighbour --------------
phase_torch() {
  if [[ $DRY == 1 ]]; then
    section "4. (dry run) out-of-memory recognition from a job's log"
    local oom
    oom=$(GQ submit "$(job_json '{"name":"dry-oom","command":["'"$PY"'","-c","import sys; sys.stderr.write(\"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\\n\"); sys.exit(1)"],"framework":"pytorch","resources":{"gpus":1,"gpuMemory":"1GiB"},"timeout":"PT1M"}')")
    GQ wait 60 "$oom" || true
    check "dry: OOM line recognised as OUT_OF_MEMORY" GQ expect "$oom" FAILED OUT_OF_MEMORY
    return 0
  fi
  section "4. Issue 4: a PyTorch job outgrows 4 GiB, its neighbour keeps running"
  local steady grow
  steady=$(GQ submit "$(job_json '{"name":"torch-steady","command":["'"$PY"'","'"$HERE"'/torch_steady.py","2","15"],"framework":"pytorch","resources":{"gpus":1,"gpuMemory":"4GiB"},"timeout":"PT3M"}')")
  grow=$(GQ submit "$(job_json '{"name":"torch-grow","command":["'"$PY"'","'"$HERE"'/torch_grow.py","1","8"],"framework":"pytorch","resources":{"gpus":1,"gpuMemory":"4GiB"},"timeout":"PT3M"}')")
  wait_running 60 1 "$steady"; sleep 6
  compare_processes "torch: per-process figures match nvidia-smi" "$steady"
  GQ wait 75 "$steady" "$grow" || true
  GQ job "$grow" || true; GQ job "$steady" || true
  check "grow job FAILED with OUT_OF_MEMORY" GQ expect "$grow" FAILED OUT_OF_MEMORY
  check "neighbour job SUCCEEDED" GQ expect "$steady" SUCCEEDED
  show_log "$grow"; show_log "$steady"
}

# ---- phase 5: stop ------------------------------------------------------------------------
phase_stop() {
  section "5. Stop gpuq"
  local pid; pid=$(cat "$WORK/gpuq.pid" 2>/dev/null) || { record FAIL "gpuq stops on SIGTERM"; return 1; }
  kill -0 "$pid" 2>/dev/null || { record FAIL "gpuq was still running at the end"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  local until=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && (( SECONDS < until )); do sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; record FAIL "gpuq stops on SIGTERM"; else record PASS "gpuq stops on SIGTERM"; fi
  echo "--- gpuq log: warnings and errors"
  grep -E ' (WARN|ERROR) ' "$WORK/gpuq.log" | cut -c1-300 | tail -n 20 || true
}

if [[ ${1:-} == --phase ]]; then "phase_$2"; exit $?; fi

# ---- main: find Java and the jar, run the phases under timeouts, summarise -----------------
bundle="$ROOT/target/gpu-verify"
if [[ -z ${JAVA:-} ]]; then
  if [[ -f $bundle/jre.tar.xz && ! -x /tmp/gpuq-verify-jre/bin/java ]]; then
    mkdir -p /tmp/gpuq-verify-jre && tar -xJf "$bundle/jre.tar.xz" -C /tmp/gpuq-verify-jre --strip-components=1
  fi
  for candidate in /tmp/gpuq-verify-jre/bin/java "$bundle/jre/bin/java" "$ROOT/jre/bin/java" "$(command -v java || true)"; do
    [[ -n $candidate && -x $candidate ]] && { JAVA=$candidate; break; }
  done
fi
if [[ -z ${GPUQ_JAR:-} ]]; then
  if [[ -f $bundle/gpuq.jar.xz ]]; then
    [[ -f /tmp/gpuq-verify.jar ]] || xz -dc "$bundle/gpuq.jar.xz" >/tmp/gpuq-verify.jar
    GPUQ_JAR=/tmp/gpuq-verify.jar
  else
    GPUQ_JAR=$(ls "$ROOT"/target/gpuq-*.jar 2>/dev/null | grep -v original | head -n1 || true)
  fi
fi
export JAVA=${JAVA:?no java found: set JAVA or run pack.sh}
export GPUQ_JAR=${GPUQ_JAR:?no gpuq jar found: set GPUQ_JAR or build it}
echo "gpuq real-GPU verification, $(date -u +%FT%TZ), dry run: $DRY, work dir $WORK"
echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"

run_phase() {  # run_phase NAME SECONDS
  local code=0
  timeout -k 10 "$2" "$SELF" --phase "$1" || code=$?
  if (( code == 124 || code == 137 )); then record FAIL "phase $1 timed out after $2 s"
  elif (( code != 0 )); then record FAIL "phase $1 broke off (exit $code)"; fi
  return 0
}
run_phase env 60
run_phase start 90
if grep -q '^PASS gpuq starts' "$WORK/results"; then
  run_phase gpus 30
  run_phase jax 150
  run_phase naive 75
  run_phase torch 90
fi
if [[ -f $WORK/gpuq.pid ]]; then
  run_phase stop 40
fi

section "Summary"
cat "$WORK/results"
passed=$(grep -c '^PASS' "$WORK/results" || true)
failed=$(grep -c '^FAIL' "$WORK/results" || true)
skipped=$(grep -c '^SKIP' "$WORK/results" || true)
echo "PASS $passed, FAIL $failed, SKIP $skipped"
[[ -n ${OUT:-} && -d ${OUT:-} ]] && cp "$WORK/gpuq.log" "$OUT/gpuq.log" 2>/dev/null || true
if (( failed > 0 )); then echo "RESULT: FAIL"; exit 1; fi
echo "RESULT: PASS"
