#!/bin/sh
# gpuq worker wrapper: runs one attempt of a job and writes its exit code to a file, so that the
# outcome reaches disk even when gpuq is not running.
#   usage: worker-wrapper.sh EXIT_FILE PROGRAM [ARG...]
# PROGRAM is an absolute path resolved by gpuq, and the arguments are passed as they are: no shell
# ever interprets the user's command.
#
# The traps keep this shell alive while its command handles SIGTERM (a training run may save a
# checkpoint), and are reset to the defaults in the command itself. A trap with an empty action
# would instead be inherited as "ignore".
trap ':' TERM INT HUP
exit_file=$1
shift
"$@"
code=$?
# One short write, with shell built-ins only: an external mv would cost a process per job.
printf '%s\n' "$code" > "$exit_file"
exit "$code"
