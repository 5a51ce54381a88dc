#!/bin/bash
# SPDX-License-Identifier: MIT
# A stand-in for srun in the launcher tests (mpiexec -launcher-exec): runs
# --ntasks copies of the program here, task i with SLURM_PROCID=i and
# SLURMD_NODENAME (and FAKE_NODE) set to the i-th node of --nodelist counted
# from the end, because Slurm's order of the nodes need not be mpiexec's.
# stdin is /dev/null (--input=none).  Appends its arguments to $FAKE_SRUN_LOG;
# SIGTERM ends the tasks.
[ -n "${FAKE_SRUN_LOG:-}" ] && echo "$*" >>"$FAKE_SRUN_LOG"
nodelist= ntasks=1
while [ $# -gt 0 ]; do
    case $1 in
    --nodelist=*) nodelist=${1#*=}; shift ;;
    --ntasks=*) ntasks=${1#*=}; shift ;;
    -*) shift ;;
    *) break ;;
    esac
done
IFS=, read -ra nodes <<<"$nodelist"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null' TERM INT
for ((i = 0; i < ntasks; i++)); do
    node=${nodes[$((ntasks - 1 - i))]}
    SLURM_PROCID=$i SLURMD_NODENAME=$node FAKE_NODE=$node "$@" </dev/null &
    pids+=($!)
done
rc=0
for p in "${pids[@]}"; do
    while :; do
        wait "$p"
        s=$?
        kill -0 "$p" 2>/dev/null || break   # wait returned for a signal, not the task
    done
    [ "$s" != 0 ] && rc=$s
done
exit $rc
