#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debugging one rank (docs/usage.md, "Debugging"):
#   test_debug.sh backtrace NP   a rank that dies of SIGSEGV prints a backtrace
#                                naming the crashing function and its caller
#   test_debug.sh attach NP      COURIER_ATTACH=R: rank R prints its pid and host
#                                and waits; gdb attaches, clears
#                                courier_debug_wait, and the job completes
#   test_debug.sh valgrind NP PROG  every rank of the MPI test PROG runs under
#                                memcheck (with tools/courier.supp and every leak
#                                kind counted as an error) and reports 0 errors
#   test_debug.sh vgmarks NP MODE  vg_marks MODE under memcheck (src/util/vg.h
#                                marks): tail and posted must report the
#                                uninitialised read in vg_read_MODE on every
#                                receiving rank and nothing else; clean (single
#                                copies, short receives) must report 0 errors
# Environment: MPIEXEC, DEBUG_PROG (and SUPP for valgrind, VG_PROG for vgmarks).  Exit 0 pass, 1 fail, 77 skip.
set -u
: "${MPIEXEC:?}" "${DEBUG_PROG:?}"
what=$1 np=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/courier-debug.XXXXXX")
jobpid=
cleanup() {
    [ -n "$jobpid" ] && kill -TERM "$jobpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; exit 1; }
last=$((np - 1))

case $what in
backtrace)
    timeout -k 5 60 "$MPIEXEC" -n "$np" "$DEBUG_PROG" crash "$last" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    cat "$tmp/err"
    [ $rc -ne 0 ] || fail "the job exited 0 although rank $last crashed"
    [ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "the job hung after the crash (timeout)"
    grep -q "UNEXPECTED" "$tmp/out" && fail "the crashing rank went on"
    grep -Eq "^\[courier\] rank $last \(pid [0-9]+ on [^)]+\): SIGSEGV \(segmentation fault\) at address 0x10; backtrace:" "$tmp/err" \
        || fail "no crash report line for rank $last"
    grep -Eq "^  #[0-9]+ debug_crash_here\+0x[0-9a-f]+ \(.*debug_prog\+0x[0-9a-f]+\)$" "$tmp/err" \
        || fail "the backtrace does not name debug_crash_here"
    grep -Eq "^  #[0-9]+ debug_caller\+0x[0-9a-f]+ " "$tmp/err" || fail "the backtrace does not name debug_caller"
    grep -Eq "^  #[0-9]+ main\+0x[0-9a-f]+ " "$tmp/err" || fail "the backtrace does not reach main"
    # only the crashing rank reports
    n=$(grep -c "backtrace:" "$tmp/err")
    [ "$n" -eq 1 ] || fail "$n crash reports, expected 1"
    echo "PASS backtrace np=$np" ;;
attach)
    command -v gdb >/dev/null || { echo "gdb is not installed; skipped"; exit 77; }
    "$MPIEXEC" -n "$np" -env COURIER_ATTACH "$last" "$DEBUG_PROG" work >"$tmp/out" 2>"$tmp/err" </dev/null &
    jobpid=$!
    pid=""
    for _ in $(seq 1 200); do
        pid=$(sed -n "s/^\[courier\] rank $last waits for a debugger: pid \([0-9]*\) on .*/\1/p" "$tmp/err")
        [ -n "$pid" ] && break
        sleep 0.1
    done
    [ -n "$pid" ] || fail "rank $last did not print its pid"
    grep -q "gdb -p $pid" "$tmp/err" || fail "no gdb recipe printed"
    sleep 1
    kill -0 "$jobpid" 2>/dev/null || fail "the job did not wait for the debugger"
    grep -q PASS "$tmp/out" && fail "the job finished before the debugger attached"
    timeout 30 gdb -p "$pid" -batch -ex 'set var *(int *)&courier_debug_wait = 0' >"$tmp/gdb" 2>&1
    if grep -qi "ptrace: Operation not permitted" "$tmp/gdb"; then
        echo "gdb may not attach here (ptrace not permitted); skipped"
        exit 77
    fi
    for _ in $(seq 1 300); do
        kill -0 "$jobpid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$jobpid" 2>/dev/null && { cat "$tmp/gdb"; fail "the job did not finish after gdb released rank $last"; }
    wait "$jobpid"; rc=$?; jobpid=
    cat "$tmp/err"
    [ $rc -eq 0 ] || fail "exit status $rc"
    grep -q "^PASS debug_prog work (np=$np)" "$tmp/out" || fail "no PASS"
    grep -q "rank $last: debugger attached, going on" "$tmp/err" || fail "rank $last did not say it went on"
    echo "PASS attach np=$np" ;;
valgrind)
    prog=$3
    command -v valgrind >/dev/null || { echo "valgrind is not installed; skipped"; exit 77; }
    timeout -k 5 600 "$MPIEXEC" -n "$np" -env COURIER_OVERSUBSCRIBED 1 \
        valgrind --tool=memcheck --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
        --errors-for-leak-kinds=all --suppressions="$SUPP" "$prog" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    cat "$tmp/out"
    [ $rc -eq 0 ] || fail "exit status $rc (99: memcheck found errors)"
    n=$(grep -c "ERROR SUMMARY: 0 errors from 0 contexts" "$tmp/err")
    [ "$n" -eq "$np" ] || fail "$n of $np ranks report 0 memcheck errors"
    grep -q "^PASS " "$tmp/out" || fail "the test did not pass under valgrind"
    grep -h "suppressed:" "$tmp/err" | head -1
    echo "PASS valgrind $(basename "$prog") np=$np" ;;
vgmarks)
    mode=$3
    : "${VG_PROG:?}"
    command -v valgrind >/dev/null || { echo "valgrind is not installed; skipped"; exit 77; }
    # clean: the packet log (COURIER_DEBUG=3) shows how the big messages came;
    # gather and reduce by single copy (the others write into the root's buffer).
    # The adaptive protocol is off: under valgrind every peer looks descheduled,
    # and it would stage the messages whose split copy this mode checks.
    dbg=()
    [ "$mode" = clean ] && dbg=(-env COURIER_DEBUG 3 -env COURIER_COLL_GATHER_ALG 5
                                -env COURIER_COLL_REDUCE_ALG 4 -env COURIER_ADAPTIVE 0)
    timeout -k 5 300 "$MPIEXEC" -n "$np" "${dbg[@]}" \
        valgrind --tool=memcheck --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
        --errors-for-leak-kinds=all --suppressions="$SUPP" "$VG_PROG" "$mode" \
        >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    cat "$tmp/out"
    [ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "the job timed out"
    grep -q "^PASS vg_marks $mode (np=$np)" "$tmp/out" || fail "the data that arrived was wrong"
    clean=$(grep -c "ERROR SUMMARY: 0 errors from 0 contexts" "$tmp/err")
    if [ "$mode" = clean ]; then
        [ $rc -eq 0 ] || fail "exit status $rc (99: memcheck found errors)"
        [ "$clean" -eq "$np" ] || fail "$clean of $np ranks report 0 memcheck errors"
        grep -Eq "packet: from 0: data" "$tmp/err" && fail "the pipeline carried the big messages, not single copies"
        grep -Eq "packet: from 0: rts" "$tmp/err" || fail "no rendezvous: the messages were not single-copy sized"
        # two ranks on two cores are not oversubscribed: the receiver splits the
        # copy with the sender, whose process_vm_writev memcheck cannot see
        if [ "$np" -eq 2 ]; then grep -q "packet: from 0: wdone" "$tmp/err" || fail "no split copy at np=2"; fi
        echo "PASS vgmarks clean np=$np"
    else
        [ $rc -ne 0 ] || fail "memcheck reported nothing (exit status 0)"
        [ "$clean" -eq 1 ] || fail "$clean ranks report 0 errors: expected rank 0 only"
        # every error is an uninitialised read in vg_read_$mode
        nerr=$(grep -Ec "^==[0-9]+== [A-Z][a-z]" "$tmp/err")
        nread=$(grep -Ec "^==[0-9]+== Conditional jump or move depends on uninitialised value" "$tmp/err")
        # the ranks' reports interleave: follow each one by its pid
        nat=$(awk -v fn="vg_read_$mode " '
            match($0, /^==[0-9]+==/) { pid = substr($0, 1, RLENGTH)
                if (index($0, "Conditional jump or move depends on uninitialised value")) { want[pid] = 1; next }
                if (want[pid] && index($0, " at 0x")) { if (index($0, fn)) n++; want[pid] = 0 } }
            END { print n + 0 }' "$tmp/err")
        [ "$nread" -ge $((np - 1)) ] || fail "$nread uninitialised reads reported, expected one per receiving rank"
        [ "$nat" -eq "$nread" ] || fail "only $nat of $nread uninitialised reads are in vg_read_$mode"
        echo "memcheck reports: $nerr lines, $nread uninitialised reads in vg_read_$mode"
        echo "PASS vgmarks $mode np=$np"
    fi ;;
*) echo "unknown test $what"; exit 2 ;;
esac
