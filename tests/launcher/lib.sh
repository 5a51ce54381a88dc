# SPDX-License-Identifier: MIT
# What the launcher test scripts share (sourced): a temporary directory, a
# marker argument to find the test's processes, running mpiexec with a
# timeout, checks, and running one test function by name (run_test NAME).
# Environment: MPIEXEC (Courier's mpiexec), PMI_TEST (tests/launcher/pmi_test).
set -u
: "${MPIEXEC:?set MPIEXEC to the Courier mpiexec}"
: "${PMI_TEST:?set PMI_TEST to the pmi_test program}"
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE COURIER_ABORT_TIMEOUT_MS COURIER_LAUNCH_FANOUT
unset OMP_NUM_THREADS OMP_PLACES OMP_PROC_BIND
# not inside a Slurm allocation, whatever runs the tests (fake_srun.sh's test sets its own)
unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE

TMP=$(mktemp -d /tmp/courier-launcher-test.XXXXXX)
MARK="--marker=crlt$$x$RANDOM"
BGPID=
# Scripts may add their own clean-up (run first) in CLEANUP_HOOK.
CLEANUP_HOOK=
cleanup() {
    [ -n "$CLEANUP_HOOK" ] && $CLEANUP_HOOK
    [ -n "$BGPID" ] && kill -9 "$BGPID" 2>/dev/null
    pkill -9 -f -- "$MARK" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }
ok() { echo "ok: $*"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# A command (and arguments) that runs mpiexec elsewhere, e.g. (on 1) to run
# it on host cn1 of test_hosts.sh's cluster; empty: here.
RUN_PREFIX=()

# run TIMEOUT_S ARGS... : runs mpiexec, sets RC, OUT, ERR, MS (elapsed)
run() {
    local t=$1; shift
    local t0; t0=$(now_ms)
    ${RUN_PREFIX[@]+"${RUN_PREFIX[@]}"} timeout -k 2 "$t" "$MPIEXEC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
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
    ${RUN_PREFIX[@]+"${RUN_PREFIX[@]}"} "$MPIEXEC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null &
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


# expect_lines N K: $TMP/out holds N*K lines of pmi_test lines (with -l), each
# whole, prefixed with its own rank, in order per rank.
expect_lines() {
    local total; total=$(wc -l <"$TMP/out")
    [ "$total" = $(($1 * $2)) ] && ok "$total lines" || fail "$total lines, expected $(($1 * $2))"
    if awk '
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
}

# Run test function t_NAME; exit 0 pass, 1 fail (77 skip comes from the test).
run_test() {
    local name=${1:?test name}
    if ! declare -F "t_$name" >/dev/null; then echo "unknown test $name"; exit 2; fi
    "t_$name"
    [ "$FAILED" = 0 ] && echo "PASS: $name" || echo "FAILED: $name"
    exit $FAILED
}
