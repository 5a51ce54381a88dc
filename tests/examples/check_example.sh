#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run one of the assignment examples and check what it prints.
#
#   check_example.sh MPIEXEC BINDIR CHECK
#
# CHECK is one of
#   bcast_study       4 ranks, --quick: every algorithm verified, cost columns right
#   bcast_study_odd   3 ranks, root 1, 1000-byte chunks (many chunks, a remainder)
#   cg_poisson        1 rank and 4 ranks as 1x4, 2x2, 4x1 (and 3 ranks as chosen by
#                     MPI_Dims_create): the same iteration count and residual, converged,
#                     error against the exact solution small
#   amdahl            2 ranks: the split computation agrees, P_max as in the assignment
#   pinning           2 ranks: one line per rank in rank order; with -bind-to core each
#                     rank is allowed one cpu and runs on it
# Every job runs under timeout(1).  Exit status 0 when all checks pass.
set -u
[ $# -eq 3 ] || { echo "usage: check_example.sh MPIEXEC BINDIR CHECK" >&2; exit 2; }
mpiexec=$1 bin=$2 check=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/courier-example.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
fail=0

# run NP PROGRAM ARGS...: output in $out (and shown), fails the test on a bad exit status
run() {
    local np=$1; shift
    echo "+ $mpiexec -n $np $*"
    timeout -k 5 "${EXAMPLE_TIMEOUT:-60}" "$mpiexec" -n "$np" "$@" >"$out" 2>"$tmp/err" </dev/null
    local rc=$?
    cat "$out"
    [ -s "$tmp/err" ] && sed 's/^/stderr: /' "$tmp/err"
    if [ $rc -ne 0 ]; then
        echo "FAIL: exit status $rc$( [ $rc -eq 124 ] && echo ' (timed out)')"
        fail=1
        return 1
    fi
}
# expect REGEX COUNT WHAT: $out has exactly COUNT lines matching REGEX (grep -E)
expect() {
    local n
    n=$(grep -cE "$1" "$out")
    if [ "$n" -ne "$2" ]; then
        echo "FAIL: $3 (expected $2 lines matching '$1', found $n)"
        fail=1
    fi
}

case "$check" in
bcast_study)
    if run 4 "$bin/bcast_study" --quick; then
        expect '^verify (Trivial|Tree|Buffer|MPI_Bcast) +ok ' 4 "every algorithm verified"
        expect '^bcast_study: all algorithms verified$' 1 "final verdict"
        # 4 message sizes: Trivial 3 messages on the critical path, Tree ceil(log2 4) = 2
        expect '^Trivial +4 +3 +3\*' 4 "Trivial's critical path"
        expect '^Tree +4 +2 +2\*' 4 "Tree's critical path"
        # 512 KiB in 64 KiB chunks: 8 chunks + 2 more links; 3 * 8 messages in all
        expect '^Buffer +4 +10 +640KiB +24 +3\*512KiB ' 1 "Buffer's pipeline counts"
        expect '^MPI_Bcast +4 +unknown' 4 "MPI_Bcast rows"
    fi ;;
bcast_study_odd)
    if run 3 "$bin/bcast_study" --quick --root 1 --chunk 1000; then
        expect '^verify (Trivial|Tree|Buffer|MPI_Bcast) +ok ' 4 "every algorithm verified"
        expect '^bcast_study: all algorithms verified$' 1 "final verdict"
        # 65536 doubles in chunks of 125: 525 chunks, + 1 more link on the critical path
        expect '^Buffer +3 +526 ' 1 "Buffer's pipeline counts"
    fi ;;
cg_poisson)
    args=(--gridsize 0.02 --eps 1e-7)
    ref=""
    for job in "1 -" "4 1x4" "4 2x2" "4 4x1" "3 -"; do
        set -- $job
        topo=(); [ "$2" != - ] && topo=(--topo "$2")
        run "$1" "$bin/cg_poisson" "${args[@]}" ${topo[@]+"${topo[@]}"} || continue
        # the row after the "nMPI TopoX TopoY nIterations Residuum Time" header
        row=$(awk '$1 == "nMPI" { getline; print; exit }' "$out")
        read -r np tx ty iters resid _ <<<"$row"
        if [ "${np:-}" != "$1" ] || { [ "$2" != - ] && [ "$tx"x"$ty" != "$2" ]; }; then
            echo "FAIL: table row '$row' does not match $1 ranks as $2"; fail=1; continue
        fi
        expect '^converged after ' 1 "CG converged"
        err=$(sed -n 's/.*max error against the exact solution \([0-9.e+-]*\).*/\1/p' "$out")
        if ! awk -v e="${err:-9}" 'BEGIN { exit !(e < 5e-3) }'; then
            echo "FAIL: max error '$err' is not below 5e-3"; fail=1
        fi
        this="$iters iterations, residual $resid"
        echo "-> $1 ranks as ${tx}x${ty}: $this"
        if [ -z "$ref" ]; then ref=$this
        elif [ "$this" != "$ref" ]; then
            echo "FAIL: $this differs from the first run's $ref"; fail=1
        fi
    done ;;
amdahl)
    if run 2 "$bin/amdahl" --work 2000000; then
        expect '^check: the split computation agrees with the serial one: yes' 1 "same result"
        expect 'so P_max = 5$' 1 "the assignment's P_max = 5 for s = 0.1, E >= 0.7"
        expect '^2 +1\.818 +0\.909 +1\.900 +<- this run' 1 "Amdahl and Gustafson for P = 2"
        expect '^measured: T1 = ' 1 "measured line"
    fi
    if run 2 "$bin/amdahl" --work 2000000 --serial 0.05 --efficiency 0.8; then
        expect 'so P_max = 6$' 1 "P_max = 6 for s = 0.05, E >= 0.8"
    fi ;;
pinning)
    if run 2 "$bin/pinning"; then
        expect '^rank=[01]; thread=0; cpu id=[0-9]+; allowed cpus ' 2 "a line per rank"
        if [ "$(grep -oE '^rank=[0-9]+' "$out" | uniq | tr '\n' ' ')" != "rank=0 rank=1 " ]; then
            echo "FAIL: lines not in rank order"; fail=1
        fi
    fi
    if OMP_NUM_THREADS=1 run 2 -bind-to core "$bin/pinning"; then
        expect '^rank=[01]; thread=0; ' 2 "a line per rank"
        # bound: the mask is one cpu, and the process is on it
        bad=$(grep -E '^rank=' "$out" | awk -F'; ' '{ split($3, c, "="); split($4, m, " ");
              if (m[3] !~ /^[0-9]+$/ || m[3] != c[2]) print }')
        if [ -n "$bad" ]; then echo "FAIL: not bound to one cpu: $bad"; fail=1; fi
    fi ;;
*)
    echo "check_example.sh: unknown check $check" >&2; exit 2 ;;
esac

if [ $fail -eq 0 ]; then echo "PASS: $check"; else echo "FAILED: $check"; fi
exit $fail
