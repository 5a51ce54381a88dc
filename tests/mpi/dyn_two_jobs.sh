#!/bin/bash
# SPDX-License-Identifier: MIT
# Accept/connect between two jobs started separately by two mpiexec commands
# on this host (dyn_two_jobs.c).  Usage:
#   dyn_two_jobs.sh MPIEXEC PROGRAM SERVER_NP CLIENT_NP [file|names|nameserver] [TIMEOUT]
# The port goes through a file (or, with "names", through MPI_Publish_name
# and a directory of names; with "nameserver", through MPI_Publish_name and
# the server job's mpiexec, found through COURIER_NAMESERVER_FILE).
# Passes when both jobs print their PASS line and exit 0.
set -u
mpiexec=$1 prog=$2 nserver=$3 nclient=$4 mode=${5:-file} limit=${6:-60}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ "$mode" = names ]; then
    where="dyn_two_jobs-$$-$RANDOM" extra=names
    export COURIER_DYN_NAME_DIR="$dir/names"
elif [ "$mode" = nameserver ]; then
    # mpiexec's name service: the server job's mpiexec writes its address
    # into the file, the client job's mpiexec forwards its ranks' requests there
    where="dyn_two_jobs-$$-$RANDOM" extra=names
    unset COURIER_DYN_NAME_DIR COURIER_NAMESERVER
    export COURIER_NAMESERVER_FILE="$dir/ns"
else
    where="$dir/port" extra=
fi
timeout -k 5 "$limit" "$mpiexec" -n "$nserver" "$prog" server "$where" $extra >"$dir/server.out" 2>&1 &
spid=$!
if [ "$mode" = nameserver ]; then
    for k in $(seq 200); do [ -s "$dir/ns" ] && break; sleep 0.05; done
fi
timeout -k 5 "$limit" "$mpiexec" -n "$nclient" "$prog" client "$where" $extra >"$dir/client.out" 2>&1
crc=$?
wait $spid
src=$?
cat "$dir/server.out" "$dir/client.out"
if [ $src -ne 0 ] || [ $crc -ne 0 ] ||
   ! grep -q "^PASS dyn_two_jobs server (np=$nserver)" "$dir/server.out" ||
   ! grep -q "^PASS dyn_two_jobs client (np=$nclient)" "$dir/client.out"; then
    echo "FAIL dyn_two_jobs: server exit $src, client exit $crc"
    exit 1
fi
echo "PASS dyn_two_jobs $mode ($nserver + $nclient)"
