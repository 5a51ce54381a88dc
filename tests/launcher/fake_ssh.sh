#!/bin/sh
# SPDX-License-Identifier: MIT
# A stand-in for ssh in the launcher tests (mpiexec -launcher-exec): ignores
# ssh's options and the host, and runs the remote command here with sh, as
# sshd would, setting SSH_CONNECTION.  Appends its arguments to $FAKE_SSH_LOG.
[ -n "${FAKE_SSH_LOG:-}" ] && echo "$*" >>"$FAKE_SSH_LOG"
while [ $# -gt 0 ]; do
    case $1 in
    -o | -p | -l | -F | -i) shift 2 ;;
    -*) shift ;;
    *) break ;;
    esac
done
shift   # the host
SSH_CONNECTION="127.0.0.1 50000 127.0.0.1 22"
export SSH_CONNECTION
exec sh -c "$*"
