#!/bin/bash
# SPDX-License-Identifier: MIT
# mpiexec across hosts over real ssh.  Usage: test_hosts.sh NAME (a t_NAME below)
# Each test makes three hosts, cn1..cn3 (cluster.sh: namespaces joined by a
# bridge, each with its own host name and sshd), runs mpiexec on cn1 with
# -launcher-exec pointing at an ssh that uses the test's keys, and takes the
# hosts down again.  Needs root; skips (77) with a message where the machine
# cannot make namespaces.
# Environment: MPIEXEC, PMI_TEST, MPI_TEST_DIR (where tests/mpi programs are built).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cluster.sh"

CLEANUP_HOOK=cluster_down
up() {
    cluster_up 3 || { echo "FAIL: cannot make the hosts"; exit 1; }
    RUN_PREFIX=(on 1)
}
# mpiexec over ssh, on cn1
SSH_OPTS=()
ssh_opts() { SSH_OPTS=(-launcher ssh -launcher-exec "$CL_SSH"); }

# crash_job HOSTS N VICTIM VHOST: $CRASH at N ranks over HOSTS; rank VICTIM
# (on VHOST) kills itself with SIGKILL while the others wait for it: the job
# must end within a second of the death, naming rank, host and signal.
crash_job() {
    run 60 "${SSH_OPTS[@]}" -hosts "$1" -n "$2" "$CRASH" "$3" 9 "$MARK"
    local end; end=$(now_ms)
    local died; died=$(awk '/^dying/ {print $4}' <<<"$OUT")
    expect_rc 137
    expect_err "^mpiexec: rank $3 \\(pid [0-9]+ on $4\\) was killed by signal 9 \\(Killed\\); terminating the job$"
    if [ -n "$died" ]; then
        MS=$((end - died - 100))   # the victim sleeps 100 ms before the kill
        echo "measured: rank $3 of $2 killed on $4: the job ended $MS ms after the death"
        expect_fast 1000
    else
        fail "the victim never got to die: $ERR"
    fi
}

t_pmi() {
    up; ssh_opts
    # PMI across hosts at 2, 3 and 4 ranks: put, barrier, get of every other rank's value
    local n
    for n in 2 3 4; do
        run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3 -n $n "$PMI_TEST" kvs "$MARK"
        expect_rc 0; expect_out "^PASS size $n kvs kvs_"
    done
    # where each rank runs: Hydra's spreading over the hosts
    run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3 -n 4 "$PMI_TEST" where "$MARK"
    expect_rc 0
    expect_out "^rank 0 host cn1 local 0 of 2 "; expect_out "^rank 1 host cn2 local 0 of 1 "
    expect_out "^rank 2 host cn3 local 0 of 1 "; expect_out "^rank 3 host cn1 local 1 of 2 "
    run 60 "${SSH_OPTS[@]}" -hosts cn2:2,cn3:2 -n 4 "$PMI_TEST" where "$MARK"
    expect_rc 0
    expect_out "^rank 0 host cn2 local 0 of 2 "; expect_out "^rank 1 host cn2 local 1 of 2 "
    expect_out "^rank 2 host cn3 local 0 of 2 "; expect_out "^rank 3 host cn3 local 1 of 2 "
    printf 'cn3:1\ncn2:2\n' >"$TMP/hostfile"
    run 60 "${SSH_OPTS[@]}" -f "$TMP/hostfile" "$PMI_TEST" where "$MARK"
    expect_rc 0
    expect_out "^rank 0 host cn3 local 0 of 1 "; expect_out "^rank 2 host cn2 local 1 of 2 "
    run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3 -ppn 2 -n 3 "$PMI_TEST" where "$MARK"
    expect_rc 0; expect_out "^rank 1 host cn1 local 1 of 2 "; expect_out "^rank 2 host cn2 local 0 of 1 "
    # ssh is the default launcher; the secret is on no command line on any host
    run 60 -launcher-exec "$CL_SSH" -hosts cn1,cn2 -n 2 sh -c \
        'grep -aElq "[0-9a-f]{64}" /proc/[0-9]*/cmdline && echo SECRET-SEEN || echo clean' "$MARK"
    expect_rc 0
    [ "$(grep -c '^clean$' <<<"$OUT")" = 2 ] && ok "no secret on a command line on cn1 or cn2" || fail "secret: $OUT"
    cluster_down
    expect_no_leftovers
}

t_stdio() {
    up; ssh_opts
    # stdin to rank 0 on another host
    printf 'hello\nworld\n' >"$TMP/in"
    OUT=$(on 1 timeout 60 "$MPIEXEC" "${SSH_OPTS[@]}" -hosts cn2,cn1 -n 3 "$PMI_TEST" stdin "$MARK" <"$TMP/in"); RC=$?
    expect_rc 0
    [ "$OUT" = $'got: hello\nworld' ] && ok "stdin reaches rank 0 on cn2" || fail "stdin: '$OUT'"
    # output of 4 ranks on 3 hosts: whole lines, in order per rank
    local n=4 k=200
    run 60 -l "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3 -n $n "$PMI_TEST" lines $k "$MARK"
    expect_rc 0
    expect_lines $n $k
    # stderr too, and the environment travels
    run 60 "${SSH_OPTS[@]}" -hosts cn2,cn3 -n 2 -genv COURIER_TEST_X across sh -c 'echo "$(hostname) $COURIER_TEST_X" >&2' "$MARK"
    expect_rc 0; expect_err "^cn2 across$"; expect_err "^cn3 across$"
    cluster_down
    expect_no_leftovers
}

t_faults() {
    up; ssh_opts
    run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3 -n 3 "$PMI_TEST" exit 2 7 "$MARK"
    expect_rc 7; expect_err "^mpiexec: rank 2 \(pid [0-9]+ on cn3\) exited with status 7; terminating the job$"
    run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3 -n 4 "$PMI_TEST" segv 1 "$MARK"
    expect_rc 139; expect_err "rank 1 \(pid [0-9]+ on cn2\) was killed by signal 11 \(Segmentation fault\)"
    run 60 "${SSH_OPTS[@]}" -hosts cn2,cn3 -n 2 "$PMI_TEST" abort 1 3 "over ssh" "$MARK"
    expect_rc 3; expect_err "rank 1 \(pid [0-9]+ on cn3\) called MPI_Abort\(MPI_COMM_WORLD, 3\): over ssh"
    # a rank killed on another host: the job ends within a second, everywhere
    start_bg 4 "${SSH_OPTS[@]}" -hosts cn1,cn2 -n 4 "$PMI_TEST" sleep "$MARK" || return
    local t0; t0=$(now_ms)
    on 2 kill -9 "$(rank_pid 3)"   # rank 3 runs on cn2; its pid is cn2's
    wait_bg
    MS=$(( $(now_ms) - t0 ))
    expect_rc 137
    expect_err "^mpiexec: rank 3 \(pid [0-9]+ on cn2\) was killed by signal 9 \(Killed\); terminating the job$"
    expect_fast 1000
    expect_no_leftovers
    # a host that cannot be reached
    run 60 "${SSH_OPTS[@]}" -hosts cn1,cn9 -n 2 "$PMI_TEST" kvs "$MARK"
    expect_rc 255; expect_err "cannot start the proxy on host cn9"
    expect_no_leftovers
    # mpiexec killed: the proxies on the other hosts end their ranks
    start_bg 3 "${SSH_OPTS[@]}" -hosts cn2,cn3 -n 3 "$PMI_TEST" sleep "$MARK" || return
    t0=$(now_ms)
    on 1 pkill -9 -f -- "mpiexec.*$MARK"
    wait "$BGPID" 2>/dev/null; BGPID=
    expect_no_leftovers
    MS=$(( $(now_ms) - t0 )); expect_fast 2500
    cluster_down
}

t_signals() {
    up; ssh_opts
    start_bg 4 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3 -n 4 "$PMI_TEST" usr1 "$MARK" || return
    on 1 pkill -USR1 -f -- "mpiexec.*$MARK"
    wait_bg
    expect_rc 0
    [ "$(grep -c 'got SIGUSR1' <<<"$OUT")" = 4 ] && ok "SIGUSR1 reached every rank on every host" || fail "usr1: $OUT"
    start_bg 3 "${SSH_OPTS[@]}" -hosts cn2,cn3 -n 3 "$PMI_TEST" sleep "$MARK" || return
    local t0; t0=$(now_ms)
    on 1 pkill -TERM -f -- "mpiexec.*$MARK"
    wait_bg
    MS=$(( $(now_ms) - t0 ))
    expect_rc 143; expect_err "received signal 15"; expect_fast 2000
    expect_no_leftovers
    cluster_down
}

t_tree() {
    up; ssh_opts
    # mpiexec starts cn2's proxy, which starts cn3's over ssh
    export COURIER_LAUNCH_FANOUT=1
    run 60 -v "${SSH_OPTS[@]}" -hosts cn2,cn3,cn1 -n 3 "$PMI_TEST" where "$MARK"
    expect_rc 0
    expect_out "^rank 0 host cn2 "; expect_out "^rank 1 host cn3 "; expect_out "^rank 2 host cn1 "
    expect_err "^courier_proxy@cn2: launching: .* 'cn3' 'exec '"
    unset COURIER_LAUNCH_FANOUT
    cluster_down
    expect_no_leftovers
}

t_bind() {
    up; ssh_opts
    local ncores; ncores=$(lscpu -p=core 2>/dev/null | grep -v '^#' | sort -u | wc -l)
    [ "$ncores" -ge 2 ] || { echo "SKIP: needs 2 cores"; exit 77; }
    run 60 "${SSH_OPTS[@]}" -hosts cn1:2,cn2:2 -bind-to core --report-bindings -n 4 "$PMI_TEST" where "$MARK"
    expect_rc 0
    local a b
    a=$(awk '$2 == 0 {print $10}' <<<"$OUT"); b=$(awk '$2 == 1 {print $10}' <<<"$OUT")
    [ -n "$a" ] && [ "$a" != "$b" ] && [ "$(awk '$2 == 2 {print $10}' <<<"$OUT")" = "$a" ] \
        && ok "each host binds its own ranks ($a, $b)" || fail "binding: $OUT"
    expect_err "^\[cn2:[0-9]+\] MCW rank 2 bound to socket"
    expect_err "^\[cn1:[0-9]+\] MCW rank 0 bound to socket"
    cluster_down
}

# MPI across two hosts: ranks on one host use shared memory, pairs on
# different hosts the network transport (libfabric tcp;ofi_rxm over the veth
# link).  net_traffic (tests/mpi) checks every byte of pair-wise messages on
# both sides of the eager limits (so both protocols) and of barrier, bcast,
# reduce, allreduce, allgather and alltoall; -hosts cn1,cn2 -n 3 puts ranks 0
# and 2 on cn1, rank 1 on cn2.  Each run takes a few seconds (ssh, MPI_Init's
# network set-up), so the test runs a handful, not the whole MPI suite.
t_mpi() {
    cluster_up 2 || { echo "FAIL: cannot make the hosts"; exit 1; }
    RUN_PREFIX=(on 1)
    ssh_opts
    : "${MPI_TEST_DIR:?set MPI_TEST_DIR}" "${CRASH:?set CRASH}"
    local n
    for n in 2 3 4; do
        run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2 -n $n "$MPI_TEST_DIR/net_traffic" "$MARK"
        expect_rc 0; expect_out "^PASS net_traffic \(np=$n\)"
        echo "measured: net_traffic np=$n over 2 hosts: $MS ms"
    done
    # every message by rendezvous; then eager up to the network's largest
    run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2 -n 3 -genv COURIER_EAGER_LIMIT 0 "$MPI_TEST_DIR/net_traffic" "$MARK"
    expect_rc 0; expect_out "^PASS net_traffic \(np=3\)"
    # two ranks a host (0,1 on cn1; 2,3 on cn2)
    run 60 "${SSH_OPTS[@]}" -hosts cn1:2,cn2:2 -n 4 "$MPI_TEST_DIR/net_traffic" "$MARK"
    expect_rc 0; expect_out "^PASS net_traffic \(np=4\)"
    # a rank killed on cn2 while its neighbours on cn1 wait for it in MPI_Recv:
    # the job ends at once, naming the rank
    crash_job cn1,cn2 3 1 cn2
    cluster_down
    expect_no_leftovers
}

# Hierarchical collectives across two hosts (tests/mpi/coll_hier: barrier,
# bcast, reduce, allreduce, gather, scatter, allgather at 0 B - 1 MiB, every root, in
# place and not, every result checked; the tools interface says which algorithm
# ran): two ranks a host with the automatic choice, then 2 + 1 ranks with the
# hierarchical algorithms forced.
t_coll() {
    cluster_up 2 || { echo "FAIL: cannot make the hosts"; exit 1; }
    RUN_PREFIX=(on 1)
    ssh_opts
    : "${MPI_TEST_DIR:?set MPI_TEST_DIR}"
    run 120 "${SSH_OPTS[@]}" -hosts cn1:2,cn2:2 -n 4 -genv HIER_TEST_EXPECT auto \
        "$MPI_TEST_DIR/coll_hier"
    expect_rc 0; expect_out "^PASS coll_hier \(np=4\)"
    echo "measured: coll_hier np=4 over 2 hosts (2 + 2): $MS ms"
    run 120 "${SSH_OPTS[@]}" -hosts cn1:2,cn2:1 -n 3 -genv HIER_TEST_EXPECT forced \
        -genv COURIER_COLL_BARRIER_ALG 4 -genv COURIER_COLL_BCAST_ALG 6 \
        -genv COURIER_COLL_REDUCE_ALG 5 -genv COURIER_COLL_ALLREDUCE_ALG 6 \
        -genv COURIER_COLL_GATHER_ALG 6 -genv COURIER_COLL_ALLGATHER_ALG 6 \
        -genv COURIER_COLL_SCATTER_ALG 6 -genv COURIER_COLL_ALLTOALL_ALG 6 \
        -genv COURIER_COLL_REDUCE_SCATTER_ALG 6 -genv COURIER_COLL_SCAN_ALG 3 \
        "$MPI_TEST_DIR/coll_hier"
    expect_rc 0; expect_out "^PASS coll_hier \(np=3\)"
    echo "measured: coll_hier np=3 over 2 hosts (2 + 1, forced): $MS ms"
    cluster_down
    expect_no_leftovers
}

# Spawning across hosts (tests/mpi/dyn_spawn_hosts, 1-3 parents on
# -hosts cn1,cn2,cn3): where each child runs (MPI_Get_processor_name) with no
# info (the next slots of the job's host list after the parents), with info
# host, hostfile, and MPI_Comm_spawn_multiple with host / add-host / wdir; data
# over every intercommunicator; a spawn to a host that cannot be reached and
# one of a program missing on another host fail with MPI_ERR_SPAWN and the
# job goes on.
t_spawn() {
    up; ssh_opts
    : "${MPI_TEST_DIR:?set MPI_TEST_DIR}"
    printf 'cn2:1\ncn3:1\n' >"$TMP/spawn_hosts"
    local n d0 d1
    for n in 1 2 3; do
        case $n in 1) d0=cn2 d1=cn3 ;; 2) d0=cn3 d1=cn1 ;; 3) d0=cn1 d1=cn2 ;; esac
        run 120 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3 -n $n "$MPI_TEST_DIR/dyn_spawn_hosts" \
            cn2 cn3 "$TMP/spawn_hosts" cn9 "$MARK"
        expect_rc 0; expect_out "^PASS dyn_spawn_hosts \(np=$n\)"
        echo "measured: dyn_spawn_hosts np=$n (4 spawns across hosts, 2 failing): $MS ms"
        expect_out "^spawn default child 0 host $d0 appnum 0 "
        expect_out "^spawn default child 1 host $d1 appnum 0 "
        expect_out "^spawn host child 0 host cn3 "; expect_out "^spawn host child 1 host cn3 "
        expect_out "^spawn hostfile child 0 host cn2 "; expect_out "^spawn hostfile child 1 host cn3 "
        expect_out "^spawn multiple child 0 host cn2 appnum 0 "
        expect_out "^spawn multiple child 1 host cn3 appnum 1 cwd /tmp$"
        expect_out "^spawn multiple child 2 host cn3 appnum 1 cwd /tmp$"
        expect_out "^spawn unreachable failed as it should"
        expect_out "^spawn missing failed as it should"
    done
    cluster_down
    expect_no_leftovers
}

# The name service across hosts: a job on cn1 and a job started separately on
# cn2 share mpiexec's names through COURIER_NAMESERVER_FILE (the first
# mpiexec serves and writes its address there; the second forwards to it).
# tests/mpi/dyn_two_jobs: the server job publishes its port, the client job
# looks it up and connects, both check data both ways, an allreduce and a
# merge; the server unpublishes.  At 1 + 1, 2 + 1 and 1 + 2 ranks.
t_names() {
    cluster_up 2 || { echo "FAIL: cannot make the hosts"; exit 1; }
    : "${MPI_TEST_DIR:?set MPI_TEST_DIR}"
    export COURIER_NAMESERVER_FILE=$TMP/ns FI_PROVIDER=tcp
    unset COURIER_DYN_NAME_DIR COURIER_NAMESERVER
    local pair s c spid src crc k svc
    for pair in 1:1 2:1 1:2; do
        s=${pair%:*} c=${pair#*:} svc="crlt-names-$$-$s-$c"
        rm -f "$TMP/ns"
        on 1 timeout -k 2 60 "$MPIEXEC" -hosts cn1 -n "$s" "$MPI_TEST_DIR/dyn_two_jobs" server "$svc" names "$MARK" \
            >"$TMP/server.out" 2>&1 </dev/null &
        spid=$!
        for k in $(seq 200); do [ -s "$TMP/ns" ] && break; sleep 0.05; done
        grep -q " 10.77.0.1[, ]" <<<" $(cat "$TMP/ns" 2>/dev/null)" &&
            ok "the job on cn1 serves names ($TMP/ns: mode $(stat -c %a "$TMP/ns"))" || fail "no name server address in $TMP/ns"
        [ "$(stat -c %a "$TMP/ns" 2>/dev/null)" = 600 ] || fail "$TMP/ns is not mode 600"
        on 2 timeout -k 2 60 "$MPIEXEC" -hosts cn2 -n "$c" "$MPI_TEST_DIR/dyn_two_jobs" client "$svc" names "$MARK" \
            >"$TMP/client.out" 2>&1 </dev/null
        crc=$?
        wait "$spid"; src=$?
        OUT=$(cat "$TMP/server.out" "$TMP/client.out")
        RC=$((src + crc)); expect_rc 0
        expect_out "^PASS dyn_two_jobs server \(np=$s\)"; expect_out "^PASS dyn_two_jobs client \(np=$c\)"
        [ ! -e "$TMP/ns" ] && ok "the server removed $TMP/ns when it ended" || fail "$TMP/ns left behind"
    done
    unset COURIER_NAMESERVER_FILE FI_PROVIDER
    cluster_down
    expect_no_leftovers
}

# The hosts do not run the invoking user's shell start-up files: root's
# ~/.bashrc and ~/.profile sleep 100 s here, in a mount namespace of this test
# alone (a home of its own bind-mounted over root's), where the hosts are made
# and a job runs across them.
t_rcfiles() {
    if [ -z "${CL_RCFILES_HOME:-}" ]; then
        [ "$(id -u)" = 0 ] || cluster_skip "making hosts needs root (network namespaces); CI runs these tests as root"
        local home f
        home=$(getent passwd 0 | cut -d: -f6)
        mkdir "$TMP/home"
        for f in .bashrc .profile .bash_profile .bash_login; do echo 'sleep 100' >"$TMP/home/$f"; done
        CL_RCFILES_HOME=$home timeout -k 2 150 unshare --mount --propagation private \
            bash -c 'mount --bind "$1" "$CL_RCFILES_HOME" && exec bash "$2" rcfiles' _ "$TMP/home" "$0"
        RC=$?
        [ "$RC" = 77 ] && exit 77
        [ "$RC" = 0 ] && ok "hosts and a job across them with a hanging ~/.bashrc" ||
            fail "with a hanging ~/.bashrc: status $RC"
        return
    fi
    timeout 3 bash -ic true </dev/null >/dev/null 2>&1
    [ $? = 124 ] && ok "root's ~/.bashrc hangs in this mount namespace" ||
        fail "the hanging ~/.bashrc is not in place"
    up; ssh_opts
    run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3 -n 3 "$PMI_TEST" kvs "$MARK"
    expect_rc 0; expect_out "^PASS size 3 kvs kvs_"
    expect_fast 30000
    cluster_down
    expect_no_leftovers
}

# Start-up over four hosts (issue 12): mpiexec on cn1 starts the proxies of
# cn2..cn4 at once, each gets its job on ssh's stdin and starts its ranks
# before it has connected back, answers its ranks' PMI requests that need no
# other host (COURIER_LAUNCH_TRACE shows where each was answered), and ends
# when its ranks have ended.  tests/launcher/mpi_where: every rank's rank,
# size and host, an allgather of host names and a sum over the network.  Then
# a rank killed on cn4 ends the job within a second, with the report; then
# ssh's connections kept for the next job (COURIER_SSH_PERSIST_S).
t_start4() {
    cluster_up 4 || { echo "FAIL: cannot make the hosts"; exit 1; }
    RUN_PREFIX=(on 1)
    ssh_opts
    : "${MPI_WHERE:?set MPI_WHERE}" "${CRASH:?set CRASH}"
    local n r h map
    for n in 3 4 8; do
        run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3,cn4 -n $n "$MPI_WHERE" "$MARK"
        expect_rc 0
        map=map
        for r in $(seq 0 $((n - 1))); do
            h=cn$((r % 4 + 1)) map="$map cn$((r % 4 + 1))"
            grep -qx "rank $r size $n host $h" <<<"$OUT" || fail "rank $r of $n: no 'rank $r size $n host $h' in: $OUT"
        done
        [ "$(grep -c '^rank ' <<<"$OUT")" = "$n" ] && ok "$n ranks, each with its rank, size and host" ||
            fail "expected $n rank lines: $OUT"
        expect_out "^$map$"; expect_out "^sum OK$"
        echo "measured: mpi_where np=$n over 4 hosts: $MS ms"
    done
    # blocks of two ranks a host, every proxy's work traced
    export COURIER_LAUNCH_TRACE=1
    run 60 "${SSH_OPTS[@]}" -hosts cn1:2,cn2:2,cn3:2,cn4:2 -n 8 "$MPI_WHERE" "$MARK"
    unset COURIER_LAUNCH_TRACE
    expect_rc 0; expect_out "^map cn1 cn1 cn2 cn2 cn3 cn3 cn4 cn4$"; expect_out "^sum OK$"
    expect_out "^rank 7 size 8 host cn4$"
    expect_err "^courier_proxy@cn4: trace .*: job from stdin"
    expect_err "^courier_proxy@cn3: trace .*: rank [45]: PMI cmd=get .* \(answered here\)$"
    expect_err "^mpiexec: trace .*: barrier released \([0-9]+ keys to 3 proxies\)"
    grep -q "answered by its proxy" <<<"$ERR" && ok "mpiexec took note of requests its proxies answered" ||
        fail "no request answered by a proxy: $ERR"
    # a rank killed on cn4 while the others wait for it
    crash_job cn1,cn2,cn3,cn4 4 3 cn4
    expect_no_leftovers
    # ssh's connections kept for the next job: the second job reuses them
    export XDG_RUNTIME_DIR=$TMP/run COURIER_SSH_PERSIST_S=60
    mkdir -m 700 "$TMP/run"
    local k
    for k in 1 2; do
        run 60 "${SSH_OPTS[@]}" -hosts cn1,cn2,cn3,cn4 -n 4 "$MPI_WHERE" "$MARK"
        expect_rc 0; expect_out "^map cn1 cn2 cn3 cn4$"; expect_out "^sum OK$"
        echo "measured: mpi_where np=4 over 4 hosts, ssh connections kept (job $k): $MS ms"
    done
    [ "$(ls "$TMP/run/courier-ssh" 2>/dev/null | wc -l)" = 3 ] && ok "three ssh control sockets in $TMP/run/courier-ssh" ||
        fail "control sockets: $(ls -la "$TMP/run/courier-ssh" 2>&1)"
    unset XDG_RUNTIME_DIR COURIER_SSH_PERSIST_S
    cluster_down
    expect_no_leftovers
}

run_test "${1:-}"
