#!/bin/bash
# SPDX-License-Identifier: MIT
# cluster.sh's hosts for a program that is not a shell script (bench/compare
# --hosts).  Usage: cluster_serve.sh N
# Makes hosts cn1..cnN (cluster.sh: namespaces joined by a bridge, each with
# its own host name and sshd), prints one line
#   CLUSTER hosts=cn1,...,cnN ssh=SSH config=CONFIG dir=DIR pids=P1,...,PN
# (SSH: an ssh that uses the hosts' keys, CONFIG its ssh_config for `ssh -F`; Pi: the first process of host cnI,
# for `nsenter -t Pi -n -u -m -p` to run a command there), then waits until
# its standard input ends (the caller closes it, or dies) or it gets SIGTERM,
# SIGINT or SIGHUP, and takes the hosts down.  Exit status: 0; 77 (with a
# SKIP line) where this machine cannot make namespaces; 1 when the hosts could
# not be made or something was left behind.
. "$(dirname "$0")/cluster.sh"

n=${1:?usage: cluster_serve.sh N}
FAILED=0
stop() {
    trap - EXIT TERM INT HUP
    cluster_down
    [ "$FAILED" = 0 ] && echo "cluster: down, nothing left behind" || echo "cluster: down, with leftovers"
    exit $((FAILED ? 1 : ${1:-0}))
}
trap 'stop $?' EXIT
trap 'stop 0' TERM INT HUP
cluster_up "$n" || { echo "FAIL: cannot make the hosts"; stop 1; }
pids=$(IFS=,; echo "${CL_PID[*]}")
hosts=$(seq -s, -f 'cn%g' "$n")
echo "CLUSTER hosts=$hosts ssh=$CL_SSH config=$CL_DIR/ssh_config dir=$CL_DIR pids=$pids"
# the caller's end of stdin; `read` returns at its end (or a signal's trap runs)
while read -r _; do :; done
stop 0
