#!/bin/sh
# gpuq worker wrapper: runs one attempt of a job and writes its exit code to a file, so that the
# outcome reaches disk even when gpuq is not running.
#   usage: worker-wrapper.sh EXIT_FILE [--oom-score-adj N] [--cgroup CGROUP_PROCS]... PROGRAM [ARG...]
# PROGRAM is an absolute path resolved by gpuq, and the arguments are passed as they are: no shell
# ever interprets the user's command. When the job runs as another account, PROGRAM is setpriv,
# which drops to that account before the user's program runs: this wrapper stays gpuq's, so the job
# can neither signal it nor forge what it writes.
#
# The traps keep this shell alive while its command handles SIGTERM (a training run may save a
# checkpoint), and are reset to the defaults in the command itself. A trap with an empty action
# would instead be inherited as "ignore".
trap ':' TERM INT HUP
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
# gpuq keeps its own files private (umask 077); the job's files get the usual default.
umask 022
# A subshell that execs the program: the same one process as a plain "$@". Raising a score needs no
# privilege; written while still gpuq's account (root: also the floor the job cannot go below). A
# /proc that refuses it costs the job nothing else.
(
  if [ -n "$oom_score_adj" ]; then
    { echo "$oom_score_adj" >/proc/self/oom_score_adj; } 2>/dev/null
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
exit "$code"
