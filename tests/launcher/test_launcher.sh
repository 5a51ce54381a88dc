#!/bin/bash
# SPDX-License-Identifier: MIT
# Launcher tests.  Usage: test_launcher.sh NAME   (see the case at the bottom)
# Environment: MPIEXEC (Courier's mpiexec), PMI_TEST (tests/launcher/pmi_test).
# Exit 0 pass, 1 fail, 77 skip.
set -u
: "${MPIEXEC:?set MPIEXEC to the Courier mpiexec}"
: "${PMI_TEST:?set PMI_TEST to the pmi_test program}"
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE COURIER_ABORT_TIMEOUT_MS

TMP=$(mktemp -d /tmp/courier-launcher-test.XXXXXX)
MARK="--marker=crlt$$x$RANDOM"
BGPID=
cleanup() {
    [ -n "$BGPID" ] && kill -9 "$BGPID" 2>/dev/null
    pkill -9 -f -- "$MARK" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }
ok() { echo "ok: $*"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run TIMEOUT_S ARGS... : runs mpiexec, sets RC, OUT, ERR, MS (elapsed)
run() {
    local t=$1; shift
    local t0; t0=$(now_ms)
    timeout -k 2 "$t" "$MPIEXEC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    RC=$?
    MS=$(( $(now_ms) - t0 ))
    OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err")
}

expect_rc() { [ "$RC" = "$1" ] && ok "exit status $RC" || fail "exit status $RC, expected $1 (stderr: $ERR)"; }
expect_out() { grep -Eq -- "$1" <<<"$OUT" && ok "stdout has /$1/" || fail "stdout lacks /$1/: $OUT"; }
expect_err() { grep -Eq -- "$1" <<<"$ERR" && ok "stderr has /$1/" || fail "stderr lacks /$1/: $ERR"; }
expect_fast() {
    [ "$MS" -lt "$1" ] && ok "took $MS ms (< $1)" || fail "took $MS ms, more than $1"
}

# No process with our marker within 2 s, and no shm file of job $1 (if given).
expect_no_leftovers() {
    local i
    for i in $(seq 40); do
        pgrep -f -- "$MARK" >/dev/null || break
        sleep 0.05
    done
    if pgrep -f -- "$MARK" >/dev/null; then
        fail "processes left behind: $(pgrep -af -- "$MARK")"
    else
        ok "no process left"
    fi
    if [ -n "${1:-}" ]; then
        if compgen -G "/dev/shm/courier.$1.*" >/dev/null; then
            fail "shared-memory files left: $(ls /dev/shm/courier."$1".*)"
            rm -f /dev/shm/courier."$1".*
        else
            ok "no /dev/shm/courier.$1.* left"
        fi
    fi
}

# Start mpiexec in the background with `sleep`-like modes; wait for N "ready" lines.
start_bg() {
    local n=$1; shift
    "$MPIEXEC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null &
    BGPID=$!
    local i
    for i in $(seq 200); do
        [ "$(grep -c '^ready' "$TMP/out" 2>/dev/null)" = "$n" ] && break
        sleep 0.025
    done
    [ "$(grep -c '^ready' "$TMP/out")" = "$n" ] || { fail "ranks not ready: $(cat "$TMP/out" "$TMP/err")"; return 1; }
    KVS=$(awk '/^ready/ {print $4; exit}' "$TMP/out")
    ok "$n ranks ready (job $KVS)"
}

# Wait for the background mpiexec; sets RC and MS (since the call).
wait_bg() {
    local t0; t0=$(now_ms)
    local i
    for i in $(seq 100); do
        kill -0 "$BGPID" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$BGPID" 2>/dev/null; then
        fail "mpiexec still running after 5 s"
        kill -9 "$BGPID"
    fi
    wait "$BGPID"
    RC=$?
    MS=$(( $(now_ms) - t0 ))
    BGPID=
    OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err")
}

rank_pid() { awk -v r="$1" '$1 == "ready" && $2 == r {print $3}' "$TMP/out"; }

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
    local total; total=$(wc -l <"$TMP/out")
    [ "$total" = $((n * k)) ] && ok "$total lines" || fail "$total lines, expected $((n * k))"
    # every line whole, prefixed with its own rank, in order per rank
    if awk -v k=$k '
        { if (!match($0, /^\[[0-9]+\] rank [0-9]+ line [0-9]+ x+$/)) { print "bad line: " $0; bad=1; exit }
          r = substr($1, 2, length($1) - 2)
          if ($3 != r) { print "rank mismatch: " $0; bad=1; exit }
          if (length($6) != 100) { print "broken line: " $0; bad=1; exit }
          if ($5 != next_[r] + 0) { print "out of order: " $0; bad=1; exit }
          next_[r]++ }
        END { exit bad }' "$TMP/out"; then
        ok "no interleaving, prefixes right, order kept per rank"
    else
        fail "line check"
    fi
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

t_startup() {
    local n=20 t0 ms
    "$MPIEXEC" -n 2 /bin/true || fail "mpiexec -n 2 /bin/true"
    t0=$(now_ms)
    for _ in $(seq $n); do "$MPIEXEC" -n 2 /bin/true; done
    ms=$(( ($(now_ms) - t0) ))
    echo "mpiexec -n 2 /bin/true: $((ms * 1000 / n)) us per run (average of $n)"
    [ $((ms / n)) -lt 30 ] && ok "start-up under 30 ms" || fail "start-up $((ms / n)) ms"
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
    OUT=$(timeout 20 mpiexec.mpich -pmi-port -n 1 "$PMI_TEST" env PMI_PORT "$MARK" 2>&1)
    expect_out "^PMI_PORT=.+:[0-9]+$"
}

name=${1:?test name}
if ! declare -F "t_$name" >/dev/null; then echo "unknown test $name"; exit 2; fi
"t_$name"
[ "$FAILED" = 0 ] && echo "PASS: $name" || echo "FAILED: $name"
exit $FAILED
