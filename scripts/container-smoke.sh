#!/usr/bin/env bash
# Builds gpuq's image and runs it for real, then brings up the CPU compose stack:
#
#   scripts/container-smoke.sh
#
# 1. an engine: ../shared/containers/stand-ins.sh docker where it exists (it starts dockerd and
#    builds local stand-ins for the base images, as no registry serves them here), else the
#    machine's own docker and registry;
# 2. builds the Dockerfile, runs the image with the privileges docs/deploy.md promises, waits for
#    the engine's own health status, and checks: a CPU job and a job on an emulated GPU fraction
#    run and log; gpuq is root with exactly five capabilities and no-new-privileges; jobs run as
#    gpuq-job and can read neither gpuq's environment (its token) nor its database;
# 3. brings up docker-compose.cpu.yml and checks: gpuq healthy, a job's row in PostgreSQL, the
#    Prometheus target up, the alert rules loaded, gpuq_jobs queryable through Prometheus;
#    then down -v.
#
# Whatever it started (containers, the stack, a dockerd) is stopped on success and on failure.
# Where no dockerd can start, it says so in one line and exits 0: the machine's fault, not gpuq's.
# Anything else that fails exits non-zero. Needs curl and python3 on the host.
set -euo pipefail
cd "$(dirname "$0")/.."

STANDINS=../shared/containers/stand-ins.sh
TOKEN=smoke-admin-token-0123456789
COMPOSE_TOKEN=demo-admin-token-change-me
PROJECT=gpuqsmoke
IMAGE=gpuq:smoke
WORK=$(mktemp -d)
container=""
compose_up=false
stop_dockerd=false

log() { echo "container-smoke: $*" >&2; }

# Debian's client where Debian's engine runs (stand-ins.sh installs both): a newer client elsewhere
# on PATH wants the buildx plugin for BuildKit, which Debian's engine does not need.
docker() {
  if [ -x /usr/bin/docker ]; then
    /usr/bin/docker "$@"
  else
    command docker "$@"
  fi
}
fail() {
  log "FAILED: $*"
  exit 1
}

compose() {
  if command -v docker-compose >/dev/null 2>&1; then
    DOCKER_HOST=${DOCKER_HOST:-unix:///var/run/docker.sock} docker-compose -p "$PROJECT" "$@"
  else
    docker compose -p "$PROJECT" "$@"
  fi
}

cleanup() {
  local code=$?
  set +e
  if [ -n "$container" ]; then
    [ "$code" -ne 0 ] && docker logs --tail 80 "$container" >&2
    docker rm -f "$container" >/dev/null 2>&1
  fi
  if $compose_up; then
    [ "$code" -ne 0 ] && compose -f docker-compose.cpu.yml logs --tail 60 >&2
    compose -f docker-compose.cpu.yml down -v >/dev/null 2>&1
  fi
  if $stop_dockerd; then
    bash "$STANDINS" stop >/dev/null 2>&1
  fi
  rm -rf "$WORK"
  exit "$code"
}
trap cleanup EXIT

# --- 1. an engine ---------------------------------------------------------------------------
engine_was_up=false
docker info >/dev/null 2>&1 && engine_was_up=true
if [ -f "$STANDINS" ]; then
  log "getting an engine and base images from $STANDINS (the first time takes minutes)"
  if ! bash "$STANDINS" docker >"$WORK/stand-ins.log" 2>&1; then
    if ! docker info >/dev/null 2>&1; then
      echo "container-smoke: skipped: dockerd cannot start on this machine ($(tail -1 "$WORK/stand-ins.log"))"
      exit 0
    fi
    cat "$WORK/stand-ins.log" >&2
    fail "the stand-in base images could not be built"
  fi
  $engine_was_up || stop_dockerd=true
elif ! docker info >/dev/null 2>&1; then
  echo "container-smoke: skipped: no container engine runs on this machine (docker info fails)"
  exit 0
fi

# JSON from stdin: python3 -c PROGRAM ARG... where PROGRAM reads the parsed document as `d`.
json() {
  local program=$1
  shift
  python3 -c "import json, sys; d = json.load(sys.stdin); $program" "$@"
}

api() { # METHOD BASE-URL PATH TOKEN [BODY]
  local method=$1 base=$2 path=$3 token=$4 body=${5:-}
  if [ -n "$body" ]; then
    curl -fsS -X "$method" "$base$path" -H "Authorization: Bearer $token" \
      -H 'Content-Type: application/json' -d "$body"
  else
    curl -fsS -X "$method" "$base$path" -H "Authorization: Bearer $token"
  fi
}

# Waits until CHECK (a shell command) succeeds, at most SECONDS; says WHAT it waited for.
await() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "waited ${seconds}s for $what"
    sleep 2
  done
}

healthy() { [ "$(docker inspect -f '{{.State.Health.Status}}' "$1")" = healthy ]; }
running() {
  [ "$(docker inspect -f '{{.State.Running}}' "$1")" = true ] \
    || fail "container $1 exited: $(docker inspect -f '{{.State.ExitCode}}' "$1")"
}
await_healthy() {
  local deadline=$((SECONDS + 300))
  until healthy "$1"; do
    running "$1"
    [ $SECONDS -lt $deadline ] || fail "the container's health status never became healthy"
    sleep 3
  done
}

job_ended() { # BASE TOKEN ID
  api GET "$1" "/api/v1/jobs/$3" "$2" \
    | json 'sys.exit(0 if d["state"] in ("SUCCEEDED", "FAILED", "CANCELLED") else 1)'
}
job_field() { api GET "$1" "/api/v1/jobs/$3" "$2" | json 'print(d.get(sys.argv[1]))' "$4"; }
submit() { api POST "$1" /api/v1/jobs "$2" "$3" | json 'print(d["id"])'; }
run_job() { # BASE TOKEN BODY -> id, once ended
  local id
  id=$(submit "$1" "$2" "$3")
  await 180 "job $id to end" job_ended "$1" "$2" "$id"
  echo "$id"
}
expect_succeeded() { # BASE TOKEN ID
  local state
  state=$(job_field "$1" "$2" "$3" state)
  [ "$state" = SUCCEEDED ] \
    || fail "job $3 is $state: $(job_field "$1" "$2" "$3" failureMessage); log: $(api GET "$1" "/api/v1/jobs/$3/logs" "$2")"
}

# --- 2. the image ---------------------------------------------------------------------------
log "building the image"
DOCKER_BUILDKIT=1 docker build -q -t "$IMAGE" . >/dev/null

log "running it with the documented privileges"
container=$(docker run -d \
  --cap-drop ALL --cap-add CHOWN --cap-add DAC_OVERRIDE --cap-add KILL \
  --cap-add SETUID --cap-add SETGID --security-opt no-new-privileges \
  -p 127.0.0.1::8080 \
  -e GPUQ_AUTH_TOKENS_0_NAME=smoke -e GPUQ_AUTH_TOKENS_0_ROLE=ADMIN \
  -e GPUQ_AUTH_TOKENS_0_TOKEN="$TOKEN" -e GPUQ_GPU_BACKEND=emulated \
  "$IMAGE")
await_healthy "$container"
BASE="http://$(docker port "$container" 8080/tcp | head -1)"
log "healthy at $BASE"

cpu=$(run_job "$BASE" "$TOKEN" \
  '{"name": "smoke-cpu", "command": ["sh", "-c", "echo cpu-ok; id -un"], "resources": {"gpus": 0}}')
expect_succeeded "$BASE" "$TOKEN" "$cpu"
[ "$(api GET "$BASE" "/api/v1/jobs/$cpu/logs" "$TOKEN")" = "$(printf 'cpu-ok\ngpuq-job')" ] \
  || fail "the CPU job's log is not 'cpu-ok' then 'gpuq-job': $(api GET "$BASE" "/api/v1/jobs/$cpu/logs" "$TOKEN")"

gpu=$(run_job "$BASE" "$TOKEN" \
  '{"name": "smoke-gpu", "framework": "jax", "command": ["sh", "-c", "echo devices=$CUDA_VISIBLE_DEVICES fraction=$XLA_PYTHON_CLIENT_MEM_FRACTION"], "resources": {"gpus": 1, "gpuFraction": 0.25}}')
expect_succeeded "$BASE" "$TOKEN" "$gpu"
api GET "$BASE" "/api/v1/jobs/$gpu/logs" "$TOKEN" | grep -Eq '^devices=[^ ]+ fraction=0\.2[0-9]*$' \
  || fail "the GPU job's log lacks its device and fraction: $(api GET "$BASE" "/api/v1/jobs/$gpu/logs" "$TOKEN")"
log "a CPU job and a job on a quarter of an emulated GPU ran"

java_pid=$(docker exec "$container" cat /proc/1/task/1/children | awk '{print $1}')
status=$(docker exec "$container" cat "/proc/$java_pid/status")
echo "$status" | grep -Eq '^Uid:[[:space:]]+0[[:space:]]' || fail "gpuq does not run as root: $(echo "$status" | grep ^Uid)"
# CHOWN (0), DAC_OVERRIDE (1), KILL (5), SETGID (6), SETUID (7): 0xe3, and nothing else.
echo "$status" | grep -Eq '^CapEff:[[:space:]]+00000000000000e3$' \
  || fail "gpuq's capabilities are not exactly the five: $(echo "$status" | grep ^Cap)"
echo "$status" | grep -Eq '^NoNewPrivs:[[:space:]]+1$' || fail "no-new-privileges is not set"
log "gpuq runs as root with exactly CHOWN, DAC_OVERRIDE, KILL, SETUID, SETGID; jobs as gpuq-job"

probe_body=$(python3 -c '
import json, sys
script, pid = sys.argv[1], sys.argv[2]
secrets = ["/proc/%s/environ" % pid, "/var/lib/gpuq/db/gpuq.mv.db"]
print(json.dumps({"name": "smoke-isolation", "resources": {"gpus": 0},
                  "command": ["sh", "-c", script, "sh"] + secrets}))' \
  'for f in "$@"; do cat "$f" >/dev/null 2>&1 && echo "READ $f" || echo "DENIED $f"; done
   ls /var/lib/gpuq >/dev/null 2>&1 && echo LISTED || echo NOT-LISTED' "$java_pid")
probe=$(run_job "$BASE" "$TOKEN" "$probe_body")
expect_succeeded "$BASE" "$TOKEN" "$probe"
expected=$(printf 'DENIED /proc/%s/environ\nDENIED /var/lib/gpuq/db/gpuq.mv.db\nNOT-LISTED' "$java_pid")
actual=$(api GET "$BASE" "/api/v1/jobs/$probe/logs" "$TOKEN")
[ "$actual" = "$expected" ] || fail "a job reached gpuq's secrets: $actual"
docker exec "$container" test -s /var/lib/gpuq/db/gpuq.mv.db || fail "the probe's database file does not exist"
log "a job reads neither gpuq's environment (its token) nor its database, nor lists its data dir"
docker rm -f "$container" >/dev/null
container=""

# --- 3. the CPU compose stack ---------------------------------------------------------------
for file in docker-compose.yml docker-compose.cpu.yml; do
  compose -f "$file" config -q || fail "compose refuses $file"
done
docker tag "$IMAGE" gpuq:local
log "bringing up docker-compose.cpu.yml"
compose_up=true
compose -f docker-compose.cpu.yml up -d --no-build >"$WORK/compose.log" 2>&1 \
  || { cat "$WORK/compose.log" >&2; fail "compose up"; }
gpuq_container=$(compose -f docker-compose.cpu.yml ps -q gpuq)
await_healthy "$gpuq_container"
STACK=http://127.0.0.1:8080
log "the stack's gpuq is healthy"

stacked=$(run_job "$STACK" "$COMPOSE_TOKEN" '{"command": ["sh", "-c", "echo stack-ok"], "resources": {"gpus": 0}}')
expect_succeeded "$STACK" "$COMPOSE_TOKEN" "$stacked"
row=$(compose -f docker-compose.cpu.yml exec -T postgres \
  psql -U gpuq -d gpuq -tAc "select state from jobs where id = '$stacked'" | tr -d '[:space:]')
[ "$row" = SUCCEEDED ] || fail "the job's row in PostgreSQL says '$row'"
log "the job's row is in PostgreSQL"

target_up() {
  curl -fsS http://127.0.0.1:9090/api/v1/targets \
    | json 'sys.exit(0 if any(t["labels"]["job"] == "gpuq" and t["health"] == "up" for t in d["data"]["activeTargets"]) else 1)'
}
await 180 "Prometheus's gpuq target to be up" target_up
rules=$(grep -c '^[[:space:]]*- alert:' deploy/prometheus/alerts.yml)
loaded=$(curl -fsS http://127.0.0.1:9090/api/v1/rules \
  | json 'print(sum(1 for g in d["data"]["groups"] for r in g["rules"] if r["type"] == "alerting"))')
[ "$loaded" = "$rules" ] || fail "Prometheus loaded $loaded alert rules, alerts.yml has $rules"
jobs_known() {
  curl -fsS -G http://127.0.0.1:9090/api/v1/query --data-urlencode 'query=gpuq_jobs{state="SUCCEEDED"}' \
    | json 'sys.exit(0 if d["data"]["result"] and float(d["data"]["result"][0]["value"][1]) >= 1 else 1)'
}
await 180 "gpuq_jobs to reach Prometheus" jobs_known
log "Prometheus scrapes gpuq, loaded all $rules alert rules, and answers gpuq_jobs"

compose -f docker-compose.cpu.yml down -v >/dev/null 2>&1 || fail "compose down -v"
compose_up=false
log "passed"
