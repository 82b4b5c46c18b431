#!/bin/sh
# gpuq worker wrapper: runs one attempt of a job and writes its exit code to a file, so that the
# outcome reaches disk even when gpuq is not running.
#   usage: worker-wrapper.sh EXIT_FILE [--oom-score-adj N] [--log-cap MAX_BYTES LOG]
#          [--cgroup CGROUP_PROCS]... PROGRAM [ARG...]
# PROGRAM is an absolute path resolved by gpuq, and the arguments are passed as they are: no shell
# ever interprets the user's command. When the job runs as another account, PROGRAM is setpriv,
# which drops to that account before the user's program runs: this wrapper stays gpuq's, so the job
# can neither signal it nor forge what it writes.
#
# The traps keep this shell alive while its command handles SIGTERM, or the USR1, USR2 or INT a
# preemption or a timeout warning sends (issue 35: a training run may save a
# checkpoint), and are reset to the defaults in the command itself. A trap with an empty action
# would instead be inherited as "ignore".
trap ':' TERM INT HUP USR1 USR2
# Opened before the job runs, so nothing the job does later can make the write below block or go
# elsewhere; the job itself never gets this descriptor (3>&- below). gpuq wrote a placeholder of
# blank lines there before the start: opened without truncating it, the code overwrites bytes the
# file already has, which needs no free space on a full disk (tmpfs, ext4, xfs).
exec 3<>"$1"
shift
# The job's oom_score_adj: high, so that the kernel's OOM killer takes a job, never gpuq. Written
# in the job's own process below, not here: this shell, which records the exit code, keeps gpuq's.
oom_score_adj=
if [ "$1" = --oom-score-adj ]; then
  oom_score_adj=$2
  shift 2
fi
# With --log-cap, the job writes into a pipe (LOG.pipe) and a log keeper (keep_log below) appends
# what comes to the log, this shell's standard output (LOG names it, for the files beside it),
# keeping it under MAX_BYTES. Without it the job writes to the log itself.
log_cap=
if [ "$1" = --log-cap ]; then
  log_cap=$2
  log=$3
  shift 3
fi
# The worker enters its cgroup (one cgroup.procs file per hierarchy) before anything else runs,
# while it is still gpuq's account: everything started from here on is born inside, and the job,
# once it runs as its own account, cannot move out. A worker that cannot enter never runs the job:
# "cgroup" in the exit file tells gpuq it was a launch failure, not the job's exit.
while [ "$1" = --cgroup ]; do
  if ! { echo $$ >"$2"; } 2>/dev/null; then
    echo "gpuq: cannot enter the worker's cgroup: $2" >&2
    printf 'cgroup\n' >&3
    exit 125
  fi
  shift 2
done

# The log keeper: copies its standard input (the job's output) to the log open on fd 7, and keeps
# the log under $1 bytes. Past it, the log keeps its first quarter, a marker line that says how
# many bytes were dropped, and its latest part: the middle is cut out by copying the latest
# quarter down over it (dd) and truncating the file there (docs/operations.md, "A job's log"). It
# is the log's only writer while the job runs, so a cut loses nothing the job writes: the job
# waits in the pipe meanwhile. Readers in gpuq take a shared flock(2) on the log around what they
# read; a cut holds it exclusively, so that no reader sees a half-moved log. What a cut leaves is
# described in the log's .cut file ("HEAD DROPPED": where the marker starts, and how many bytes
# were dropped in all), which gpuq reads to follow a log across a cut. It lives in the job's
# cgroup and is killed with it; it ignores the signals of a stop, so that a job saving its work on
# SIGTERM can still print.
keep_log() {
  trap '' TERM INT HUP USR1 USR2
  max=$1
  state=$2
  # Fixed, so that each later cut finds the marker where the first one put it.
  marker_bytes=80
  head=$((max / 4))
  keep=$((max / 4))
  dropped=0
  if [ -f "$state" ]; then
    # An earlier attempt's cuts, in the same log: the head and the count go on from there.
    read -r head dropped <"$state" || true
    case "$head$dropped" in *[!0-9]* | '') head=$((max / 4)) dropped=0 ;; esac
  fi
  while :; do
    size=$(stat -L -c %s /proc/self/fd/7 2>/dev/null) || size=0
    room=$((max - size))
    if [ "$room" -le 0 ]; then
      cut_log
      continue
    fi
    # dd writes each read as it comes (head(1) would hold it in its buffer), and stops after $room
    # bytes, or after as many reads as $room has 4 KiB blocks (a short read counts as one), or at
    # the end of the job's output, the one read that copies nothing. It fails only when the log
    # cannot be written (a full disk): what it read is lost, the job goes on.
    if dd bs=4K count="$room" iflag=count_bytes status=none; then
      now=$(stat -L -c %s /proc/self/fd/7 2>/dev/null) || now=0
      if [ "$now" -eq "$size" ]; then
        return 0
      fi
    fi
  done
}

cut_log() {
  flock -x 7 2>/dev/null
  size=$(stat -L -c %s /proc/self/fd/7 2>/dev/null) || size=0
  body=$head
  if [ "$dropped" -gt 0 ]; then body=$((head + marker_bytes)); fi
  from=$((size - keep))
  if [ "$from" -gt "$body" ]; then
    dd if=/proc/self/fd/7 of=/proc/self/fd/7 bs=1M skip="$from" seek=$((head + marker_bytes)) \
      count="$keep" iflag=skip_bytes,count_bytes oflag=seek_bytes conv=notrunc status=none
    truncate -s $((head + marker_bytes + keep)) /proc/self/fd/7
    dropped=$((dropped + from - body))
    printf '\n%-78.78s\n' "=== gpuq: $dropped bytes of this log dropped here (max-log-size) ===" |
      dd of=/proc/self/fd/7 bs="$marker_bytes" seek="$head" oflag=seek_bytes conv=notrunc \
        status=none
    # Created anew, never written through whatever might stand at its name.
    rm -f "$state"
    (set -C && printf '%s %s\n' "$head" "$dropped" >"$state") 2>/dev/null
  fi
  flock -u 7 2>/dev/null
}

if [ -n "$log_cap" ]; then
  pipe=$log.pipe
  rm -f "$pipe"
  # Where no pipe can be made, the job writes to its log directly, as without a cap.
  mkfifo -m 600 "$pipe" || log_cap=
fi
# gpuq keeps its own files private (umask 077); the job's files get the usual default.
if [ -n "$log_cap" ]; then
  keep_log "$log_cap" "$log.cut" <"$pipe" 3>&- 7>&1 &
  keeper=$!
fi
umask 022
# A subshell that execs the program: the same one process as a plain "$@". Raising a score needs no
# privilege; written while still gpuq's account (root: also the floor the job cannot go below). A
# /proc that refuses it costs the job nothing else. The log keeper keeps this shell's score.
(
  if [ -n "$oom_score_adj" ]; then
    { echo "$oom_score_adj" >/proc/self/oom_score_adj; } 2>/dev/null
  fi
  if [ -n "$log_cap" ]; then
    exec "$@" >"$pipe" 2>&1
  fi
  exec "$@"
) 3>&-
code=$?
# One short write, with shell built-ins only: an external program would cost a process per job.
# Should it fail all the same (a copy-on-write file system with no space left), the file is
# emptied, through this very descriptor: an empty exit file says "the job ran to its end but its
# code is unknown", which gpuq never retries, while the intact placeholder of a wrapper that was
# killed says "lost". `true`, not `:`: a failed redirection of a special built-in would end this
# shell before its exit status reports the code to gpuq.
if ! printf '%s\n' "$code" 2>/dev/null >&3; then
  true 2>/dev/null >/proc/self/fd/3
fi
if [ -n "$log_cap" ]; then
  # The keeper ends once all the job's output is in the log. A process the job left behind may
  # still hold the pipe open: after a few seconds the keeper is stopped, and gpuq stops what is
  # left of the worker anyway once this shell ends. The watchdog takes its sleep with it when it is
  # stopped, so that a job that ended leaves no process behind; it stops the keeper at once when it
  # cannot start its sleep (a job that left its process limit full: no fork succeeds). Each waits
  # for what it stopped: a sleep or watchdog left unreaped would be handed to PID 1 as a zombie, and
  # gpuq frees a worker's place only once its process group is empty, so every job's end waited
  # for PID 1 to reap it (about 2 s where PID 1 reaps slowly, as on the test machines; issues 34 and 39).
  #
  # The watchdog is stopped with ALRM, which this shell does not trap, never with TERM: a forked
  # shell keeps its parent's handler for a trapped signal until it resets its traps, and a TERM
  # caught in that moment was dropped, so the watchdog slept its 5 s whenever the keeper had ended
  # before the job (a job that closed its output first; a warm trial, whose output the client holds).
  # An ALRM that comes before the watchdog's own trap ends it by default, before it starts its
  # sleep; after, the trap stops the sleep, whichever moment of starting it the signal finds ($!).
  (
    trap 'kill -KILL "$keeper"' EXIT
    trap 'trap - EXIT; kill $! 2>/dev/null; wait; exit 0' ALRM
    sleep 5 &
    wait $!
  ) 2>/dev/null &
  watchdog=$!
  wait "$keeper" 2>/dev/null
  kill -ALRM "$watchdog" 2>/dev/null
  wait "$watchdog" 2>/dev/null
fi
exit "$code"
