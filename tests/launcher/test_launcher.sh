#!/bin/bash
# SPDX-License-Identifier: MIT
# Launcher tests on this machine.  Usage: test_launcher.sh NAME (a t_NAME below)
# Environment: MPIEXEC (Courier's mpiexec), PMI_TEST (tests/launcher/pmi_test).
# Exit 0 pass, 1 fail, 77 skip.
. "$(dirname "$0")/lib.sh"

t_kvs() {
    for n in 1 2 3 4; do
        run 10 -n $n "$PMI_TEST" kvs "$MARK"
        expect_rc 0
        expect_out "^PASS size $n kvs kvs_[0-9]+_0_[0-9a-f]{16}$"
    done
    # -n after other options, -np, --, and the mpirun link
    run 10 -prefix-output -np 3 -- "$PMI_TEST" kvs "$MARK"
    expect_rc 0; expect_out "^\[0\] PASS size 3"
    run 10 -genvall -bind-to none -map-by core -host localhost -n 2 "$PMI_TEST" kvs "$MARK"
    expect_rc 0; expect_out "^PASS size 2"
    local mpirun; mpirun="$(dirname "$MPIEXEC")/mpirun"
    if [ -x "$mpirun" ]; then
        timeout 10 "$mpirun" -n 2 "$PMI_TEST" kvs "$MARK" | grep -q "^PASS size 2" && ok "mpirun" || fail "mpirun"
    else
        fail "no mpirun symlink next to $MPIEXEC"
    fi
}

t_singleton() {
    OUT=$(timeout 10 "$PMI_TEST" kvs "$MARK"); RC=$?
    expect_rc 0; expect_out "^PASS size 1 kvs singleton_"
}

t_options() {
    run 5 -h; expect_rc 0; expect_out "Usage: mpiexec"
    run 5 --help; expect_rc 0; expect_out "Usage: mpiexec"
    run 5 --version; expect_rc 0; expect_out "Courier"
    run 5 -version; expect_rc 0; expect_out "Courier"
    run 5 -no-such-option -n 1 true; [ "$RC" != 0 ] && ok "unknown option fails" || fail "unknown option accepted"
    expect_err "unknown option"
    run 5 -host no-such-host.invalid -n 1 true; [ "$RC" != 0 ] && ok "remote host refused" || fail "remote host accepted"
    run 5 -n 0 true; [ "$RC" != 0 ] && ok "-n 0 refused" || fail "-n 0 accepted"
    run 5 -n 2 -wdir /no/such/dir true; expect_rc 127; expect_err "cannot start rank 0"
    run 5 -n 2 -wdir / pwd; expect_rc 0; [ "$OUT" = $'/\n/' ] && ok "-wdir" || fail "-wdir: $OUT"
    # -bind-to core: rank r on the r-th allowed cpu
    local cpus; cpus=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //')
    run 10 -l -bind-to core -n 2 sh -c 'grep Cpus_allowed_list /proc/self/status' "$MARK"
    expect_rc 0
    if [ "$(nproc)" -ge 2 ]; then
        local c0 c1
        c0=$(awk '/^\[0\]/ {print $3}' <<<"$OUT"); c1=$(awk '/^\[1\]/ {print $3}' <<<"$OUT")
        if [[ "$c0" =~ ^[0-9]+$ && "$c1" =~ ^[0-9]+$ && "$c0" != "$c1" ]]; then
            ok "bound to cpus $c0 and $c1 (allowed: $cpus)"
        else
            fail "binding: $OUT"
        fi
    fi
}

t_env() {
    export COURIER_TEST_PASSED=through
    run 10 -n 2 -genv COURIER_TEST_G gval -env COURIER_TEST_E "e val" "$PMI_TEST" env COURIER_TEST_G "$MARK"
    expect_rc 0; [ "$(grep -c '^COURIER_TEST_G=gval$' <<<"$OUT")" = 2 ] && ok "-genv" || fail "-genv: $OUT"
    run 10 -n 1 -env COURIER_TEST_E "e val" "$PMI_TEST" env COURIER_TEST_E "$MARK"
    expect_out "^COURIER_TEST_E=e val$"
    run 10 -n 1 "$PMI_TEST" env COURIER_TEST_PASSED "$MARK"
    expect_out "^COURIER_TEST_PASSED=through$"
    run 10 -n 1 -genvnone "$PMI_TEST" env COURIER_TEST_PASSED "$MARK"
    expect_out "^COURIER_TEST_PASSED unset$"
    run 10 -n 1 "$PMI_TEST" env COURIER_JOBID "$MARK"
    expect_out "^COURIER_JOBID=kvs_[0-9]+_0_[0-9a-f]{16}$"
    # -env overrides the inherited value
    run 10 -n 1 -env COURIER_TEST_PASSED new "$PMI_TEST" env COURIER_TEST_PASSED "$MARK"
    expect_out "^COURIER_TEST_PASSED=new$"
}

t_stdin() {
    OUT=$(printf 'hello\nworld\n' | timeout 10 "$MPIEXEC" -n 3 "$PMI_TEST" stdin "$MARK"); RC=$?
    expect_rc 0
    [ "$OUT" = $'got: hello\nworld' ] && ok "stdin reaches rank 0" || fail "stdin: '$OUT'"
}

t_lines() {
    local n=4 k=400
    run 20 -l -n $n "$PMI_TEST" lines $k "$MARK"
    expect_rc 0
    expect_lines $n $k
    # without -l: the same lines, no prefixes
    run 20 -n 2 "$PMI_TEST" lines 50 "$MARK"
    expect_rc 0
    grep -Evq '^rank [01] line [0-9]+ x{100}$' "$TMP/out" && fail "unprefixed output broken" || ok "unprefixed lines whole"
}

t_partial() {
    run 10 -n 1 "$PMI_TEST" partial "$MARK"
    expect_rc 0
    [ "$OUT" = "no newline" ] && ok "partial line flushed at exit" || fail "partial: '$OUT'"
    run 10 -l -n 2 "$PMI_TEST" partial "$MARK"
    expect_out "\[0\] no newline"; expect_out "\[1\] no newline"
}

t_exitcode() {
    run 10 -n 3 "$PMI_TEST" exit 1 7 "$MARK"
    expect_rc 7
    expect_err "^mpiexec: rank 1 \(pid [0-9]+ on [^)]+\) exited with status 7; terminating the job$"
    [ "$(grep -c '^mpiexec:' <<<"$ERR")" = 1 ] && ok "one message" || fail "messages: $ERR"
    expect_fast 2000
    expect_no_leftovers
    run 10 -n 2 sh -c 'exit 0' "$MARK"; expect_rc 0
}

t_segv() {
    run 10 -n 3 "$PMI_TEST" segv 2 "$MARK"
    expect_rc 139
    expect_err "^mpiexec: rank 2 \(pid [0-9]+ on [^)]+\) was killed by signal 11 \(Segmentation fault\); terminating the job$"
    expect_fast 2000
    expect_no_leftovers
}

t_abort() {
    run 10 -n 4 "$PMI_TEST" abort 1 5 "boom now" "$MARK"
    expect_rc 5
    expect_err "^mpiexec: rank 1 \(pid [0-9]+ on [^)]+\) called MPI_Abort\(MPI_COMM_WORLD, 5\): boom now; terminating the job$"
    expect_fast 2000
    expect_no_leftovers
}

t_nofinalize() {
    run 10 -n 2 "$PMI_TEST" nofinalize "$MARK"
    expect_rc 1
    expect_err "^mpiexec: rank [01] \(pid [0-9]+ on [^)]+\) exited without calling MPI_Finalize"
    expect_no_leftovers
}

t_notfound() {
    run 10 -n 2 no-such-program-courier "$MARK"
    expect_rc 127; expect_err "no-such-program-courier"
    run 10 -n 2 ./no/such/path "$MARK"
    expect_rc 127; expect_err "No such file"
    run 10 -n 1 /dev/null; expect_rc 126
}

t_kill_rank() {
    start_bg 3 -n 3 "$PMI_TEST" sleep "$MARK" || return
    kill -9 "$(rank_pid 1)"
    wait_bg
    expect_rc 137
    expect_err "^mpiexec: rank 1 \(pid [0-9]+ on [^)]+\) was killed by signal 9 \(Killed\); terminating the job$"
    expect_fast 2000
    expect_no_leftovers "$KVS"
}

t_kill_mpiexec() {
    start_bg 3 -n 3 "$PMI_TEST" sleep "$MARK" || return
    local t0; t0=$(now_ms)
    kill -9 "$BGPID"
    wait "$BGPID" 2>/dev/null; BGPID=
    expect_no_leftovers "$KVS"
    MS=$(( $(now_ms) - t0 )); expect_fast 2500
}

t_sigterm() {
    start_bg 2 -n 2 "$PMI_TEST" sleep "$MARK" || return
    kill -TERM "$BGPID"
    wait_bg
    expect_rc 143
    expect_err "^mpiexec: received signal 15 \(Terminated\); terminating the job$"
    expect_fast 2000
    expect_no_leftovers "$KVS"
    start_bg 2 -n 2 "$PMI_TEST" sleep "$MARK" || return
    kill -INT "$BGPID"
    wait_bg
    expect_rc 130
    expect_no_leftovers "$KVS"
}

# Each rank leads a session of its own (COURIER_RANK_SESSION, as Hydra's ranks
# do: Linux's autogroup then schedules it as a session) unless the host's ranks
# outnumber its cores (COURIER_OVERSUBSCRIBED: then they share mpiexec's
# session, where a yield reaches the other ranks); a rank's own child is in its
# process group and goes with the job.
t_session() {
    local who='echo "rank ${PMI_RANK:-?} pid $$ sid $(cut -d" " -f6 /proc/$$/stat)"'
    # leaders: how many ranks lead their own session; sessions: how many there are
    sessions_are() {
        local want_leaders=$1 want_sessions=$2 what=$3
        expect_rc 0
        local leaders sessions
        leaders=$(awk '$4 == $6' <<<"$OUT" | wc -l)
        sessions=$(awk '{print $6}' <<<"$OUT" | sort -u | wc -l)
        [ "$leaders" = "$want_leaders" ] && [ "$sessions" = "$want_sessions" ] \
            && ok "$what: $leaders leaders, $sessions sessions" \
            || fail "$what: $leaders leaders and $sessions sessions, expected $want_leaders and $want_sessions: $OUT"
    }
    COURIER_OVERSUBSCRIBED=0 run 10 -n 3 sh -c "$who"
    sessions_are 3 3 "3 ranks, not oversubscribed"
    COURIER_OVERSUBSCRIBED=1 run 10 -n 3 sh -c "$who"
    sessions_are 0 1 "3 ranks, oversubscribed"
    COURIER_OVERSUBSCRIBED=1 COURIER_RANK_SESSION=1 run 10 -n 3 sh -c "$who"
    sessions_are 3 3 "COURIER_RANK_SESSION=1, oversubscribed"
    COURIER_OVERSUBSCRIBED=0 COURIER_RANK_SESSION=0 run 10 -n 3 sh -c "$who"
    sessions_are 0 1 "COURIER_RANK_SESSION=0"
    COURIER_OVERSUBSCRIBED=0 start_bg 2 -n 2 sh -c "sh -c ': $MARK; sleep 300' & echo ready \${PMI_RANK:-0} \$\$ none; wait" || return
    pgrep -f -- "$MARK" >/dev/null && ok "the ranks' children run" || fail "no child of a rank runs"
    kill -TERM "$BGPID"
    wait_bg
    expect_rc 143
    expect_no_leftovers
}

t_ignoreterm() {
    # ranks that ignore SIGTERM are killed after COURIER_ABORT_TIMEOUT_MS
    export COURIER_ABORT_TIMEOUT_MS=300
    run 10 -n 3 "$PMI_TEST" ignoreterm 0 3 "$MARK"
    expect_rc 3
    expect_err "rank 0 \(pid [0-9]+ on [^)]+\) exited with status 3"
    expect_fast 1500
    [ "$MS" -ge 300 ] && ok "waited the abort timeout" || fail "SIGKILL came before the timeout ($MS ms)"
    local kvs; kvs=$(grep -o 'kvs_[0-9]*_0_[0-9a-f]*' "$TMP/out" | head -1)
    expect_no_leftovers "${kvs:-none}"
    unset COURIER_ABORT_TIMEOUT_MS
}

# Many short jobs in a row: each must succeed. The
# time is printed for information only; speed is judged by bench/compare
# (docs/performance.md), never by a test, since a loaded machine makes any
# threshold fail.
t_startup() {
    local n=20 t0 ms bad=0
    t0=$(now_ms)
    for _ in $(seq $n); do "$MPIEXEC" -n 2 /bin/true || bad=$((bad + 1)); done
    ms=$(( ($(now_ms) - t0) ))
    echo "mpiexec -n 2 /bin/true: $((ms * 1000 / n)) us per run (average of $n; information only)"
    [ $bad = 0 ] && ok "$n jobs in a row succeeded" || fail "$bad of $n jobs failed"
}

need_hydra() {
    if ! command -v mpiexec.mpich >/dev/null; then
        echo "SKIP: mpiexec.mpich (MPICH's Hydra) is not installed"
        exit 77
    fi
}

t_hydra() {
    need_hydra
    OUT=$(timeout 20 mpiexec.mpich -n 3 "$PMI_TEST" kvs "$MARK" 2>"$TMP/err"); RC=$?; ERR=$(cat "$TMP/err")
    expect_rc 0; expect_out "^PASS size 3"
    OUT=$(timeout 20 mpiexec.mpich -n 1 "$PMI_TEST" kvs "$MARK" 2>"$TMP/err"); RC=$?
    expect_rc 0; expect_out "^PASS size 1"
    OUT=$(timeout 20 mpiexec.mpich -n 3 "$PMI_TEST" abort 2 6 "hydra abort" "$MARK" 2>&1); RC=$?
    [ "$RC" != 0 ] && ok "abort under Hydra fails the job ($RC)" || fail "abort under Hydra: rc 0"
    grep -q "hydra abort" <<<"$OUT" && ok "abort message printed" || fail "abort message: $OUT"
    expect_no_leftovers
}

t_hydra_port() {
    need_hydra
    OUT=$(timeout 20 mpiexec.mpich -pmi-port -n 3 "$PMI_TEST" kvs "$MARK" 2>"$TMP/err"); RC=$?; ERR=$(cat "$TMP/err")
    expect_rc 0; expect_out "^PASS size 3"
    # Hydra itself once printed nothing here and exited in 0.1 s (clean-clone CI at
    # 45c9a9c, not reproduced in 200 runs): one retry for Hydra's own hiccup, and the
    # first attempt's status and output are shown when both fail.
    local try first=""
    for try in 1 2; do
        OUT=$(timeout 20 mpiexec.mpich -pmi-port -n 1 "$PMI_TEST" env PMI_PORT "$MARK" 2>&1); RC=$?
        grep -Eq "^PMI_PORT=.+:[0-9]+$" <<<"$OUT" && break
        first="${first}attempt $try: status $RC, output [$OUT]; "
    done
    [ -n "$first" ] && echo "note: $first"
    expect_out "^PMI_PORT=.+:[0-9]+$"
}


# ---- options of multi-host launching and binding ------------------------------------

t_options_hosts() {
    run 5 -info; expect_rc 0; expect_out "Launchers available: +ssh rsh fork slurm"; expect_out "hwloc [0-9]"
    expect_out "Transports: +.*shm"
    run 5 --help; expect_rc 0
    for o in -hosts -hostfile -ppn -launcher -launcher-exec -bind-to -map-by --report-bindings -info; do
        grep -q -- "$o" <<<"$OUT" && ok "--help lists $o" || fail "--help lacks $o"
    done
    run 5 -bind-to bogus -n 1 true; expect_rc 2; expect_err "unknown binding \"bogus\""
    run 5 -map-by core:PE=x -n 1 true; expect_rc 2; expect_err "bad PE count"
    run 5 -hosts a:0 -n 1 true; expect_rc 2; expect_err "bad process count"
    run 5 -f /no/such/hostfile -n 1 true; expect_rc 2; expect_err "cannot read host file"
    run 5 -launcher carrier-pigeon -n 1 true; expect_rc 2; expect_err "unknown launcher"
    run 5 -hosts localhost,$(hostname) -n 2 true; expect_rc 2; expect_err "both this machine"
    printf '# comment\n\nlocalhost:2   # two\n' >"$TMP/hosts"
    run 10 -f "$TMP/hosts" "$PMI_TEST" kvs "$MARK"; expect_rc 0; expect_out "^PASS size 2 "
}

# "rank R host H local L of N cpus C" lines of pmi_test where: check "R:L/N" for each rank
expect_where() {
    local want=$1 got
    got=$(awk '/^rank [0-9]+ host/ {printf "%s%s:%s/%s", sep, $2, $6, $8; sep=" "}' <<<"$OUT")
    [ "$got" = "$want" ] && ok "placement $want" || fail "placement '$got', expected '$want'"
}

t_fork() {
    # proxies started with fork: the whole proxy protocol without ssh
    for n in 2 3 4; do
        run 20 -launcher fork -hosts a,b -n $n "$PMI_TEST" kvs "$MARK"
        expect_rc 0; expect_out "^PASS size $n kvs kvs_[0-9]+_0_[0-9a-f]{16}$"
    done
    # Hydra's spreading: blocks of slots, round and round; -ppn; -map-by node
    run 20 -launcher fork -hosts a:2,b:2 -n 6 "$PMI_TEST" where "$MARK"
    expect_rc 0; expect_where "0:0/4 1:1/4 2:0/2 3:1/2 4:2/4 5:3/4"
    run 20 -launcher fork -hosts a,b -n 5 "$PMI_TEST" where "$MARK"
    expect_rc 0; expect_where "0:0/3 1:0/2 2:1/3 3:1/2 4:2/3"
    run 20 -launcher fork -hosts a:2,b:2 -ppn 3 -n 7 "$PMI_TEST" where "$MARK"
    expect_rc 0; expect_where "0:0/4 1:1/4 2:2/4 3:0/3 4:1/3 5:2/3 6:3/4"
    run 20 -launcher fork -hosts a:2,b:3 "$PMI_TEST" where "$MARK"
    expect_rc 0; expect_where "0:0/2 1:1/2 2:0/3 3:1/3 4:2/3"
    run 20 -launcher fork -hosts a:2,b:2 -map-by node -n 4 "$PMI_TEST" where "$MARK"
    expect_rc 0; expect_where "0:0/2 1:0/2 2:1/2 3:1/2"
    # this machine's ranks run under mpiexec itself, the others under a proxy
    run 20 -launcher fork -hosts localhost:1,b:2 -n 3 "$PMI_TEST" env COURIER_JOBID "$MARK"
    expect_rc 0; [ "$(grep -c '^COURIER_JOBID=kvs_' <<<"$OUT")" = 3 ] && ok "3 ranks, one job" || fail "env: $OUT"
    # a host file with host:n lines
    printf 'a:1\nb:3\n' >"$TMP/hosts"
    run 20 -launcher fork -f "$TMP/hosts" "$PMI_TEST" where "$MARK"
    expect_rc 0; expect_where "0:0/1 1:0/3 2:1/3 3:2/3"
    expect_no_leftovers
}

t_fork_stdio() {
    # rank 0 on a proxy: stdin travels over the connection
    OUT=$(printf 'hello\nworld\n' | timeout 20 "$MPIEXEC" -launcher fork -hosts b,a -n 3 "$PMI_TEST" stdin "$MARK"); RC=$?
    expect_rc 0
    [ "$OUT" = $'got: hello\nworld' ] && ok "stdin reaches rank 0 on another host" || fail "stdin: '$OUT'"
    # a bigger stdin, in several chunks
    head -c 3000000 /dev/zero | tr '\0' 'x' >"$TMP/big"
    OUT=$(timeout 20 "$MPIEXEC" -launcher fork -hosts b -n 1 sh -c 'wc -c' "$MARK" <"$TMP/big"); RC=$?
    expect_rc 0; [ "$OUT" = 3000000 ] && ok "3 MB of stdin" || fail "stdin bytes: '$OUT'"
    # output lines stay whole and in order per rank
    local n=4 k=300
    run 30 -l -launcher fork -hosts a,b -n $n "$PMI_TEST" lines $k "$MARK"
    expect_rc 0
    expect_lines $n $k
    run 10 -l -launcher fork -hosts a,b -n 2 "$PMI_TEST" partial "$MARK"
    expect_out "\[0\] no newline"; expect_out "\[1\] no newline"
}

t_fork_faults() {
    run 20 -launcher fork -hosts a,b -n 3 "$PMI_TEST" exit 1 7 "$MARK"
    expect_rc 7
    expect_err "^mpiexec: rank 1 \(pid [0-9]+ on b\) exited with status 7; terminating the job$"
    expect_fast 2000
    run 20 -launcher fork -hosts a,b -n 4 "$PMI_TEST" segv 3 "$MARK"
    expect_rc 139; expect_err "^mpiexec: rank 3 \(pid [0-9]+ on b\) was killed by signal 11 \(Segmentation fault\)"
    expect_fast 2000
    run 20 -launcher fork -hosts a,b -n 4 "$PMI_TEST" abort 1 5 "far away" "$MARK"
    expect_rc 5; expect_err "rank 1 \(pid [0-9]+ on b\) called MPI_Abort\(MPI_COMM_WORLD, 5\): far away"
    run 20 -launcher fork -hosts a,b -n 2 "$PMI_TEST" nofinalize "$MARK"
    expect_rc 1; expect_err "exited without calling MPI_Finalize"
    run 20 -launcher fork -hosts a,b -n 2 no-such-program-courier "$MARK"
    expect_rc 127; expect_err "host [ab]: cannot execute \"no-such-program-courier\""
    [ "$(grep -c 'cannot execute' <<<"$ERR")" = 1 ] && ok "one message" || fail "messages: $ERR"
    run 20 -launcher fork -hosts a,b -n 2 -wdir /no/such/dir true "$MARK"
    expect_rc 127; expect_err "/no/such/dir"
    # a rank on a proxy killed: the job ends within a second, naming rank, host and signal
    start_bg 4 -launcher fork -hosts a,b -n 4 "$PMI_TEST" sleep "$MARK" || return
    local t0; t0=$(now_ms)
    kill -9 "$(rank_pid 3)"
    wait_bg
    MS=$(( $(now_ms) - t0 ))
    expect_rc 137
    expect_err "^mpiexec: rank 3 \(pid [0-9]+ on b\) was killed by signal 9 \(Killed\); terminating the job$"
    expect_fast 1000
    expect_no_leftovers "$KVS"
    # mpiexec killed: the proxies see their connection close and end their ranks
    start_bg 4 -launcher fork -hosts a,b -n 4 "$PMI_TEST" sleep "$MARK" || return
    t0=$(now_ms)
    kill -9 "$BGPID"
    wait "$BGPID" 2>/dev/null; BGPID=
    expect_no_leftovers "$KVS"
    MS=$(( $(now_ms) - t0 )); expect_fast 2500
    # SIGTERM to mpiexec ends everything
    start_bg 4 -launcher fork -hosts a,b -n 4 "$PMI_TEST" sleep "$MARK" || return
    kill -TERM "$BGPID"
    wait_bg
    expect_rc 143; expect_fast 2000
    expect_no_leftovers "$KVS"
}

t_fork_signals() {
    # SIGUSR1 to mpiexec reaches every rank, here and behind proxies; the job goes on
    start_bg 4 -launcher fork -hosts localhost,b -n 4 "$PMI_TEST" usr1 "$MARK" || return
    kill -USR1 "$BGPID"
    wait_bg
    expect_rc 0
    [ "$(grep -c 'got SIGUSR1' <<<"$OUT")" = 4 ] && ok "every rank got SIGUSR1" || fail "usr1: $OUT"
    expect_no_leftovers
}

t_fork_tree() {
    # one proxy per level: mpiexec starts a's proxy, which starts b's, ...
    export COURIER_LAUNCH_FANOUT=1
    run 30 -v -launcher fork -hosts a,b,c,d -n 4 "$PMI_TEST" where "$MARK"
    expect_rc 0; expect_where "0:0/1 1:0/1 2:0/1 3:0/1"
    expect_err "^mpiexec: launching: .*courier_proxy' '--id' '0'"
    expect_err "^courier_proxy@a: launching: .*courier_proxy' '--id' '1'"
    expect_err "^courier_proxy@c: launching: .*courier_proxy' '--id' '3'"
    export COURIER_LAUNCH_FANOUT=2
    run 30 -launcher fork -hosts a,b,c,d,e,f,g -n 7 "$PMI_TEST" kvs "$MARK"
    expect_rc 0; expect_out "^PASS size 7"
    unset COURIER_LAUNCH_FANOUT
    expect_no_leftovers
}

t_fork_mpi() {
    # MPI programs through proxies (every "host" is this machine, so shared memory works)
    : "${MPI_TEST_DIR:?set MPI_TEST_DIR}"
    local n p
    for p in p2p_ring coll_allgather; do
        for n in 2 3 4; do
            run 60 -launcher fork -hosts a,b -n $n "$MPI_TEST_DIR/$p" "$MARK"
            expect_rc 0; expect_out "^PASS"
        done
    done
    expect_no_leftovers
}

t_flood() {
    # a rank that floods PMI delays the others' requests by milliseconds, not seconds
    run 30 -n 4 "$PMI_TEST" flood 1 2000 500 "$MARK"
    expect_rc 0; expect_out "^PASS flood"; grep 'slowest' <<<"$ERR"
    run 30 -n 3 "$PMI_TEST" flood 2 1500 500 "$MARK"
    expect_rc 0; expect_out "^PASS flood"
    # the flooder behind a proxy, next to other ranks of that proxy
    run 30 -launcher fork -hosts a:2,b:2 -n 4 "$PMI_TEST" flood 3 2000 500 "$MARK"
    expect_rc 0; expect_out "^PASS flood"; grep 'slowest' <<<"$ERR"
}

t_fakessh() {
    # the ssh launcher's command line and secret passing, with ssh played by a script
    export FAKE_SSH_LOG=$TMP/ssh.log
    for n in 2 3; do
        run 20 -launcher ssh -launcher-exec "$FAKE_SSH" -hosts x,y -n $n "$PMI_TEST" kvs "$MARK"
        expect_rc 0; expect_out "^PASS size $n"
    done
    grep -Eq -- "^-x x exec '[^']*courier_proxy' '--id' '0' '--port' '[0-9]+' '--addr' '[^']+' '--ssh-peer' '--job-stdin'$" "$FAKE_SSH_LOG" \
        && ok "ssh -x HOST 'courier_proxy ...'" || fail "ssh command: $(cat "$FAKE_SSH_LOG")"
    # connections kept for the next job (COURIER_SSH_PERSIST_S): ssh's options, a private directory
    : >"$FAKE_SSH_LOG"
    mkdir -p "$TMP/run"
    XDG_RUNTIME_DIR=$TMP/run COURIER_SSH_PERSIST_S=30 run 20 -launcher ssh -launcher-exec "$FAKE_SSH" -hosts x,y -n 2 "$PMI_TEST" kvs "$MARK"
    expect_rc 0; expect_out "^PASS size 2"
    grep -Eq -- "^-x -o ControlMaster=auto -o ControlPath=$TMP/run/courier-ssh/%C -o ControlPersist=30 x exec " "$FAKE_SSH_LOG" \
        && ok "ssh keeps its connection with COURIER_SSH_PERSIST_S" || fail "ssh command: $(cat "$FAKE_SSH_LOG")"
    : >"$FAKE_SSH_LOG"
    COURIER_SSH_FAST_KEX=1 run 20 -launcher ssh -launcher-exec "$FAKE_SSH" -hosts x,y -n 2 "$PMI_TEST" kvs "$MARK"
    expect_rc 0
    grep -Eq -- "^-x -o KexAlgorithms=curve25519-sha256,[^ ]+ x exec " "$FAKE_SSH_LOG" && ok "classic key exchanges with COURIER_SSH_FAST_KEX=1" ||
        fail "ssh command: $(cat "$FAKE_SSH_LOG")"
    [ "$(stat -c %a "$TMP/run/courier-ssh" 2>/dev/null)" = 700 ] && ok "control directory mode 700" || fail "no control directory"
    grep -Eq '[0-9a-f]{64}' "$FAKE_SSH_LOG" && fail "the secret is on ssh's command line" || ok "no secret on ssh's command line"
    # rsh takes the same command
    run 20 -launcher rsh -launcher-exec "$FAKE_SSH" -hosts x,y -n 2 "$PMI_TEST" kvs "$MARK"
    expect_rc 0; expect_out "^PASS size 2"
    # an ssh that fails: the job fails at once, naming the host
    run 20 -launcher ssh -launcher-exec /bin/false -hosts x,y -n 2 "$PMI_TEST" kvs "$MARK"
    expect_rc 255; expect_err "cannot start the proxy on host [xy]: /bin/false exited with status 1"   # whichever host fails first
    expect_fast 3000
    unset FAKE_SSH_LOG
    expect_no_leftovers
}

t_fakesrun() {
    # inside a Slurm allocation mpiexec starts its proxies with one srun
    export FAKE_SRUN_LOG=$TMP/srun.log SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='n[1-2]' SLURM_TASKS_PER_NODE='2(x2)'
    run 30 -launcher-exec "$FAKE_SRUN" "$PMI_TEST" env FAKE_NODE "$MARK"
    expect_rc 0
    # ranks 0,1 on n1 and 2,3 on n2, though srun started n2's proxy first
    run 30 -l -launcher-exec "$FAKE_SRUN" "$PMI_TEST" env FAKE_NODE "$MARK"
    local got; got=$(sort <<<"$OUT" | tr '\n' ' ')
    [ "$got" = "[0] FAKE_NODE=n1 [1] FAKE_NODE=n1 [2] FAKE_NODE=n2 [3] FAKE_NODE=n2 " ] \
        && ok "ranks on the nodes Slurm named" || fail "placement: $got"
    grep -Eq -- "--nodelist=n1,n2 --nodes=2 --ntasks=2 --ntasks-per-node=1 .*--cpu-bind=none .*courier_proxy --slurm-base 0 " \
        "$FAKE_SRUN_LOG" && ok "srun's arguments" || fail "srun: $(cat "$FAKE_SRUN_LOG")"
    grep -Eq '[0-9a-f]{64}' "$FAKE_SRUN_LOG" && fail "the secret is on srun's command line" || ok "no secret on srun's command line"
    run 30 -launcher-exec "$FAKE_SRUN" -n 3 "$PMI_TEST" exit 2 9 "$MARK"
    expect_rc 9; expect_err "rank 2 \(pid [0-9]+ on n2\) exited with status 9"
    unset FAKE_SRUN_LOG SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE
    expect_no_leftovers
}

t_auth() {
    # nobody gets in without the job's secret, and it is on no command line
    start_bg 2 -launcher fork -hosts a,b -n 2 "$PMI_TEST" sleep "$MARK" || return
    local port
    port=$(ss -ltnpH 2>/dev/null | awk -v p="pid=$BGPID," 'index($0, p) { n = split($4, a, ":"); print a[n]; exit }')
    if [ -z "$port" ]; then fail "cannot find mpiexec's port"; else ok "mpiexec listens on port $port"; fi
    if grep -aEq '[0-9a-f]{64}' /proc/[0-9]*/cmdline 2>/dev/null; then
        fail "a 64-digit hex string is on a command line: $(grep -alE '[0-9a-f]{64}' /proc/[0-9]*/cmdline)"
    else
        ok "no secret on any command line"
    fi
    # a client that does not know the secret
    python3 - "$port" <<'PYEOF' && ok "a wrong proof is refused" || fail "a wrong proof was not refused"
import os, socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
hdr = s.recv(12)
n = struct.unpack(">I", hdr[:4])[0]
s.recv(n)
s.sendall(struct.pack(">IHHi", 64, 2, 0, 1) + os.urandom(64))
try:
    sys.exit(0 if s.recv(100) == b"" else 1)
except ConnectionResetError:
    sys.exit(0)
PYEOF
    # a proxy with a wrong secret
    printf '%064x\n' 7 | timeout 10 "$PROXY" --id 1 --port "$port" --addr 127.0.0.1 >"$TMP/proxy.out" 2>&1
    local prc=$?
    [ $prc = 255 ] && grep -q "did not accept this proxy" "$TMP/proxy.out" && ok "a proxy with a wrong secret gets nothing" \
        || fail "wrong-secret proxy: rc $prc $(cat "$TMP/proxy.out")"
    grep -q "refused a connection from 127.0.0.1: it does not know the job's secret" "$TMP/err" \
        && ok "mpiexec says so" || fail "no refusal message: $(cat "$TMP/err")"
    kill -0 "$BGPID" 2>/dev/null && ok "the job goes on" || fail "the job died"
    kill -TERM "$BGPID"
    wait_bg
    expect_rc 143
    expect_no_leftovers "$KVS"
}

# ---- binding -------------------------------------------------------------------------------

# the cpus of core c (its hwthreads) and all allowed cpus, from /sys and our mask
core_cpus() { cat "/sys/devices/system/cpu/cpu$1/topology/thread_siblings_list"; }

# "[R] Cpus_allowed_list: X" -> X for rank R
cpus_of() { awk -v r="[$1]" '$1 == r && $2 == "Cpus_allowed_list:" {print $3}' <<<"$OUT"; }
SHOW='grep Cpus_allowed_list /proc/self/status; echo "places=${OMP_PLACES-unset} bind=${OMP_PROC_BIND-unset}"'

t_bind() {
    local all ncores
    all=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
    ncores=$(lscpu -p=core 2>/dev/null | grep -v '^#' | sort -u | wc -l)
    if [ "$(nproc)" -lt 2 ] || [ "$ncores" -lt 2 ]; then echo "SKIP: needs 2 cores"; exit 77; fi
    # -bind-to core: one core each (all of its hwthreads), different cores, reported as Open MPI does
    run 10 -l -bind-to core --report-bindings -n 2 sh -c "$SHOW" "$MARK"
    expect_rc 0
    local c0 c1; c0=$(cpus_of 0); c1=$(cpus_of 1)
    [ "$c0" = "$(core_cpus "${c0%%[,-]*}")" ] && [ "$c1" = "$(core_cpus "${c1%%[,-]*}")" ] && [ "$c0" != "$c1" ] \
        && ok "bound to cores: $c0 and $c1" || fail "core binding: $OUT"
    expect_err "^\[[^:]+:[0-9]+\] MCW rank 0 bound to socket [0-9]+\[core [0-9]+\[hwt [0-9,-]+\]\]: \[[B./]+\]"
    expect_err "^\[[^:]+:[0-9]+\] MCW rank 1 bound to socket"
    expect_out "^\[0\] places=\{[0-9,]+\} bind=close$"
    # bound ranks on cores of their own are not oversubscribed: each sees only its own
    # core, and the library counts the CPUs of all the node's ranks (init.c)
    if [ -x "${MPI_WHERE:-}" ]; then
        COURIER_DEBUG=2 run 20 -bind-to core -n 2 "$MPI_WHERE"
        expect_rc 0
        expect_err "runtime up: 2 ranks, 2 on this node, not oversubscribed"
        COURIER_DEBUG=2 run 20 -n "$(( $(nproc) + 1 ))" "$MPI_WHERE"
        expect_err "runtime up: [0-9]+ ranks, [0-9]+ on this node, oversubscribed"
    fi
    # -bind-to hwthread: one cpu each
    run 10 -l -bind-to hwthread -n 2 sh -c "$SHOW" "$MARK"
    c0=$(cpus_of 0); c1=$(cpus_of 1)
    [[ "$c0" =~ ^[0-9]+$ && "$c1" =~ ^[0-9]+$ && "$c0" != "$c1" ]] && ok "hwthreads $c0 and $c1" || fail "hwthread: $OUT"
    # -bind-to socket / numa: the package's (node's) cpus we may use
    run 10 -l -bind-to socket -n 1 sh -c "$SHOW" "$MARK"
    local pkg; pkg=$(cat "/sys/devices/system/cpu/cpu$(cpus_of 0 | cut -d, -f1 | cut -d- -f1)/topology/package_cpus_list" 2>/dev/null)
    [ -n "$(cpus_of 0)" ] && ok "socket binding $(cpus_of 0) (package $pkg)" || fail "socket: $OUT"
    run 10 -l -bind-to numa -n 1 sh -c "$SHOW" "$MARK"; expect_rc 0
    # PE=2: two cores
    run 10 -l -map-by core:PE=2 -n 1 sh -c "$SHOW" "$MARK"
    c0=$(cpus_of 0)
    [ "$c0" != "$(core_cpus "${c0%%[,-]*}")" ] && ok "two cores: $c0" || fail "PE=2: $OUT"
    expect_out "^\[0\] places=\{[0-9,]+\},\{[0-9,]+\} bind=close$"
    # OpenMP-aware: OMP_NUM_THREADS=2 gives a rank two cores and places for its threads
    OMP_NUM_THREADS=2 run 10 -l -bind-to core -n 1 sh -c "$SHOW" "$MARK"
    expect_out "^\[0\] places=\{[0-9,]+\},\{[0-9,]+\} bind=close$"
    [ "$(cpus_of 0)" = "$c0" ] && ok "OMP_NUM_THREADS=2: $c0" || fail "omp: $OUT"
    # ... unless the user chose
    OMP_NUM_THREADS=2 OMP_PLACES=threads run 10 -l -bind-to core -n 1 sh -c "$SHOW" "$MARK"
    expect_out "^\[0\] places=threads bind=close$"
    # too few cores: not bound, with a warning, rather than stacked
    local many=$(( ncores + 1 ))
    run 10 -l -bind-to core --report-bindings -n $many sh -c "$SHOW" "$MARK"
    expect_rc 0
    expect_err "warning: host .*: $many ranks x 1 core each need more than the [0-9]+ cores? this host offers; not binding \(oversubscribed\)"
    expect_err "MCW rank 0 is not bound"
    expect_out "^\[0\] places=unset bind=unset$"
    OMP_NUM_THREADS=$ncores run 10 -l -bind-to core -n 2 sh -c "$SHOW" "$MARK"
    expect_err "2 ranks x $ncores cores each \(OMP_NUM_THREADS\) need more"
    # only the cpus mpiexec may use
    local last; last=$(lscpu -p=cpu | grep -v '^#' | tail -1)
    OUT=$(taskset -c "$last" "$MPIEXEC" -l -bind-to core -n 1 sh -c "$SHOW" "$MARK" 2>&1)
    [ "$(cpus_of 0)" = "$last" ] || [ "$(cpus_of 0)" = "$(core_cpus "$last")" ] && ok "within taskset -c $last" \
        || fail "taskset: $OUT"
    # no binding unless asked
    run 10 -l -n 2 sh -c "$SHOW" "$MARK"
    [ "$(cpus_of 0)" = "$all" ] && ok "unbound by default" || fail "default: $OUT"
    expect_out "^\[0\] places=unset bind=unset$"
    # binding through proxies: each host binds its own ranks, reports come back
    run 20 -l -launcher fork -hosts a,b -bind-to core --report-bindings -n 4 sh -c "$SHOW" "$MARK"
    expect_rc 0
    [ "$(cpus_of 1)" = "$(cpus_of 0)" ] && [ "$(cpus_of 3)" = "$(cpus_of 2)" ] && [ "$(cpus_of 0)" != "$(cpus_of 2)" ] \
        && ok "local rank 0 on each host on one core, local rank 1 on another" || fail "proxies: $OUT"
    [ "$(grep -c 'MCW rank [0-3] bound to' <<<"$ERR")" = 4 ] && ok "4 reports" || fail "reports: $ERR"
}

t_bind_omp() {
    # the threads of a rank land on its own cores (gcc's libgomp reads OMP_PLACES)
    [ -x "${OMP_WHERE:-}" ] || { echo "SKIP: built without OpenMP"; exit 77; }
    local ncores; ncores=$(lscpu -p=core 2>/dev/null | grep -v '^#' | sort -u | wc -l)
    [ "$ncores" -ge 2 ] || { echo "SKIP: needs 2 cores"; exit 77; }
    OMP_NUM_THREADS=2 run 10 -bind-to core -n 1 "$OMP_WHERE"
    expect_rc 0
    local t0 t1
    t0=$(awk '$4 == 0 {print $6}' <<<"$OUT"); t1=$(awk '$4 == 1 {print $6}' <<<"$OUT")
    [ -n "$t0" ] && [ -n "$t1" ] && [ "$t0" != "$t1" ] && [ "$t0" = "$(core_cpus "${t0%%[,-]*}")" ] \
        && ok "thread 0 on $t0, thread 1 on $t1" || fail "threads: $OUT"
    # unbound: the threads may run anywhere
    OMP_NUM_THREADS=2 run 10 -n 1 "$OMP_WHERE"
    [ "$(awk '$4 == 0 {print $6}' <<<"$OUT")" = "$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)" ] && ok "unbound threads" \
        || fail "unbound: $OUT"
}

t_bind_progress() {
    # the progress thread (COURIER_ASYNC_PROGRESS=1) of a bound rank: a core of its
    # own when the host has one spare per rank, else the rank's (tests/mpi/thr_pin.c
    # reads back where each thread may run)
    local pin="$MPI_TEST_DIR/thr_pin" ncores
    [ -x "$pin" ] || { echo "SKIP: no $pin"; exit 77; }
    ncores=$(lscpu -p=core 2>/dev/null | grep -v '^#' | sort -u | wc -l)
    [ "$ncores" -ge 2 ] || { echo "SKIP: needs 2 cores"; exit 77; }
    COURIER_ASYNC_PROGRESS=1 run 30 -l -bind-to core --report-bindings -n 1 "$pin" own "$MARK"
    expect_rc 0
    expect_err "MCW rank 0 bound to socket [0-9]+\[core [0-9]+\[hwt [0-9,-]+\]\]: \[[B./]+\]; progress thread bound to socket"
    expect_out "^\[0\] rank 0 main=[0-9,-]+ progress=[0-9,-]+ compute=[0-9,-]+ given=[0-9,-]+$"
    # as many ranks as cores: nothing spare, the thread shares its rank's core
    COURIER_ASYNC_PROGRESS=1 run 30 -l -bind-to core --report-bindings -n "$ncores" "$pin" shared "$MARK"
    expect_rc 0
    expect_err "MCW rank 0 bound to .*; progress thread shares it: "
    # MPICH's name for the setting works too; no binding, no reservation
    MPIR_CVAR_ASYNC_PROGRESS=1 run 30 -l -bind-to core --report-bindings -n 1 "$pin" own "$MARK"
    expect_rc 0
    COURIER_ASYNC_PROGRESS=1 run 30 -l -n 1 "$pin" auto "$MARK"
    expect_rc 0
    expect_out "given=unset$"
}

run_test "${1:-}"
