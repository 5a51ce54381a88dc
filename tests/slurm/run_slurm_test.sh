#!/bin/bash
# SPDX-License-Identifier: MIT
# Courier under external launchers: a Slurm made here (slurmctld + slurmd +
# munged, one node, in a temporary directory), and MPICH's Hydra.
# Usage: run_slurm_test.sh NAME        (NAME: see the case at the bottom)
# Environment (set by tests/slurm/CMakeLists.txt):
#   MPI_PROGS      MPI test programs that print "PASS" (tests/mpi), space-separated
#   CRASH          tests/slurm/crash.c built against the library
#   PROBE          tests/slurm/pmi_probe.c (a PMI client from src/pmi)
#   MPIEXEC        Courier's mpiexec
#   LIBMPI         the library (its dependencies are checked)
#   COURIER_REQUIRE_SLURM=1   (CI) a test that would skip fails instead
# Exit 0 pass, 1 fail, 77 skip.  Everything started here is stopped at the
# end, also on failure (trap), and nothing may be left in /dev/shm.
set -u
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE PMI_JOBID PMIX_RANK PMIX_NAMESPACE \
      SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID COURIER_PMI
export LC_ALL=C

FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }
ok() { echo "ok: $*"; }
now_ms() { date +%s%3N; }

skip() {
    if [ "${COURIER_REQUIRE_SLURM:-0}" = 1 ]; then
        echo "FAIL: would skip, but COURIER_REQUIRE_SLURM=1: $*"
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}

TMP=$(mktemp -d /tmp/courier-slurm-test.XXXXXX)
chmod 700 "$TMP"
mkdir -p "$TMP/run"
SLURM_UP=0
DONE=0
JOBS_FIRST=0
JOBS_RUN=0

# ---- the local Slurm ------------------------------------------------------------

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pid_of() { [ -s "$1" ] && cat "$1"; }

# Kill a daemon by its pid file: TERM, then KILL after 3 s.
stop_daemon() {
    local pid i
    pid=$(pid_of "$1") || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 60); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null
}

# Every process with a file descriptor or working directory inside $TMP
# (slurmstepd holds its spool sockets there, the ranks their cwd).
procs_in_tmp() {
    local p
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = "$$" ] && continue
        if ls -l "$p/fd" 2>/dev/null | grep -q -- "$TMP" ||
           [ "$(readlink "$p/cwd" 2>/dev/null)" = "$TMP/run" ]; then
            echo "${p#/proc/}"
        fi
    done
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ "$DONE" != 1 ] && [ "$status" != 77 ] && [ "$FAILED" = 0 ]; then
        echo "FAIL: the test script stopped early (status $status)"
        FAILED=1
    fi
    if [ "$SLURM_UP" = 1 ]; then
        SLURM_CONF="$TMP/slurm.conf" scancel --quiet --full --signal=KILL -u "$(id -un)" 2>/dev/null
        stop_daemon "$TMP/slurmd.pid"
        stop_daemon "$TMP/slurmctld.pid"
        [ -S "$TMP/munge/socket" ] && munged --stop --socket="$TMP/munge/socket" >/dev/null 2>&1
        stop_daemon "$TMP/munge/munged.pid"
    fi
    [ -n "${BGPID:-}" ] && kill -KILL "$BGPID" 2>/dev/null
    local left p
    left=$(procs_in_tmp)
    for p in $left; do kill -KILL "$p" 2>/dev/null; done
    [ -n "$left" ] && echo "FAIL: processes left behind, killed: $left" && FAILED=1
    check_shm
    rm -rf "$TMP"
    [ "$status" = 77 ] && [ "$FAILED" = 0 ] && exit 77
    [ "$FAILED" = 0 ] && echo "PASS: $NAME" || echo "FAILED: $NAME"
    exit "$FAILED"
}
trap cleanup EXIT
trap 'fail "interrupted"; exit 1' INT TERM

# No shared-memory file of any of our Slurm jobs (ids JOBS_FIRST.. ) or Hydra
# jobs (kvs_<pid of one of our mpiexec.mpich runs>).
check_shm() {
    local f id left=""
    for f in /dev/shm/courier.*; do
        [ -e "$f" ] || continue
        for id in $(seq "$JOBS_FIRST" $((JOBS_FIRST + JOBS_RUN))) ${HYDRA_PIDS:-}; do
            case "$f" in
            /dev/shm/courier.$id.*|/dev/shm/courier.slurm.pmix.$id.*|/dev/shm/courier.kvs_${id}_*)
                left="$left $f"; rm -f "$f";;
            esac
        done
    done
    [ -z "$left" ] || { echo "FAIL: left in /dev/shm:$left"; FAILED=1; }
}

start_slurm() {
    for b in slurmctld slurmd srun munged munge sinfo scancel python3; do
        command -v "$b" >/dev/null || skip "$b is not installed (.ci/run installs slurm-wlm and munge)"
    done
    [ "$(id -u)" = 0 ] || skip "the local Slurm needs root (slurmd starts jobs as their user)"
    local host; host=$(hostname -s)
    mkdir -p "$TMP/munge" "$TMP/state" "$TMP/spool/$host" "$TMP/log" "$TMP/run"
    chmod 700 "$TMP/munge"
    head -c 1024 /dev/urandom >"$TMP/munge/munge.key"
    chmod 400 "$TMP/munge/munge.key"
    if ! munged --force --key-file="$TMP/munge/munge.key" --socket="$TMP/munge/socket" \
            --pid-file="$TMP/munge/munged.pid" --log-file="$TMP/munge/munged.log" \
            --seed-file="$TMP/munge/seed" 2>"$TMP/munge/start.err"; then
        skip "munged cannot start here: $(cat "$TMP/munge/start.err" "$TMP/munge/munged.log" 2>/dev/null | tail -3)"
    fi
    SLURM_UP=1
    local ctld_port slurmd_port
    ctld_port=$(free_port); slurmd_port=$(free_port)
    # Job ids of our own, so that job names (and /dev/shm names) never meet
    # those of another Slurm on this machine.
    JOBS_FIRST=$(( (RANDOM * 32768 + RANDOM) % 60000000 + 1000000 ))
    cat >"$TMP/slurm.conf" <<EOF
ClusterName=couriertest
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$TMP/munge/socket
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool/%n
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
PlugStackConfig=$TMP/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
FirstJobId=$JOBS_FIRST
ReturnToService=2
InactiveLimit=0
KillWait=2
MinJobAge=10
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
    : >"$TMP/plugstack.conf"
    export SLURM_CONF="$TMP/slurm.conf"
    if ! slurmctld -f "$SLURM_CONF" -i 2>"$TMP/log/ctld.err" ||
       ! slurmd -f "$SLURM_CONF" -N "$host" 2>"$TMP/log/slurmd.err"; then
        skip "Slurm cannot start here: $(tail -3 "$TMP"/log/*.err "$TMP"/log/*.log 2>/dev/null)"
    fi
    local i state=""
    for i in $(seq 100); do
        state=$(sinfo -h -o %T 2>/dev/null)
        [ "$state" = idle ] && break
        sleep 0.1
    done
    [ "$state" = idle ] || skip "the Slurm node did not come up (state '$state'): $(tail -5 "$TMP"/log/*.log)"
    ok "Slurm up on $host (ports $ctld_port/$slurmd_port, jobs from $JOBS_FIRST)"
}

need_mpi_plugin() {
    srun --mpi=list 2>&1 | grep -qw "$1" || skip "Slurm has no mpi/$1 plugin: $(srun --mpi=list 2>&1 | tr '\n' ' ')"
}

need_hydra() {
    command -v mpiexec.mpich >/dev/null || skip "mpiexec.mpich (MPICH's Hydra) is not installed"
}

# run TIMEOUT_S LAUNCHER... : runs a job in $TMP/run; sets RC, OUT, ERR, END (ms).
run() {
    local t=$1; shift
    case "$1" in srun) JOBS_RUN=$((JOBS_RUN + 1));; esac
    (cd "$TMP/run" && exec timeout -k 2 "$t" "$@") >"$TMP/out" 2>"$TMP/err" </dev/null
    RC=$?
    END=$(now_ms)
    OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err")
}

# Hydra names its jobs kvs_<pid of mpiexec.mpich>_...: run it as a direct
# child to know that pid (for check_shm), with a watchdog for the time limit.
run_hydra() {
    local t=$1; shift
    (cd "$TMP/run" && exec mpiexec.mpich "$@") >"$TMP/out" 2>"$TMP/err" </dev/null &
    local pid=$!
    HYDRA_PIDS="${HYDRA_PIDS:-} $pid"
    sleep "$t" &
    local timer=$! which=""
    wait -n -p which "$pid" "$timer"
    RC=$?
    END=$(now_ms)
    if [ "$which" = "$pid" ]; then
        kill "$timer" 2>/dev/null
    else
        kill -TERM "$pid" 2>/dev/null
        sleep 2
        kill -KILL "$pid" 2>/dev/null
        RC=124
    fi
    wait "$pid" "$timer" 2>/dev/null
    OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err")
}

expect_pass() {   # expect_pass WHAT
    if [ "$RC" = 0 ] && grep -q "^PASS" <<<"$OUT"; then
        ok "$1: $(grep -m1 '^PASS' <<<"$OUT")"
    else
        fail "$1: status $RC; stdout: $(tail -3 <<<"$OUT"); stderr: $(tail -5 <<<"$ERR")"
    fi
}

# ---- the tests ----------------------------------------------------------------

# MPI programs from tests/mpi at 1-4 ranks (4 on 2 cores: oversubscribed).
mpi_programs() {   # mpi_programs LAUNCHER-WORDS...
    local p n
    for p in $MPI_PROGS; do
        for n in 1 2 3 4; do
            if [ "$1" = srun ]; then
                run 120 "$@" -n "$n" "$p"
            else
                run_hydra 120 -n "$n" "$p"
            fi
            expect_pass "$* $(basename "$p") at $n ranks"
        done
    done
}

# The crash test: rank 1 of N kills itself with SIG; the job must end by itself
# within LIMIT ms of the death, with a non-zero status and messages naming
# rank 1 (and the signal where the launcher or the rank can say it).
crash_case() {   # crash_case KIND N SIG LIMIT_MS LAUNCHER-WORDS...
    local kind=$1 n=$2 sig=$3 limit=$4; shift 4
    if [ "$kind" = hydra ]; then run_hydra 60 -n "$n" "$CRASH" 1 "$sig"; else run 60 "$@" -n "$n" "$CRASH" 1 "$sig"; fi
    local what="$kind: rank 1 of $n killed by signal $sig"
    local died; died=$(awk '/^dying/ {print $4}' <<<"$OUT")
    if [ -z "$died" ]; then
        fail "$what: the victim never got to die: status $RC; $(tail -3 <<<"$ERR")"
        return
    fi
    local ms=$((END - died - 100))   # the victim sleeps 100 ms before the kill
    if [ "$RC" = 124 ]; then
        fail "$what: the job hung (stopped by the time limit)"
        return
    fi
    [ "$RC" != 0 ] && ok "$what: status $RC" || fail "$what: status 0"
    [ "$ms" -lt "$limit" ] && ok "$what: job ended $ms ms after the death" ||
        fail "$what: job ended $ms ms after the death (limit $limit)"
    echo "measured: $kind np=$n signal $sig: $ms ms"
    grep -q "^UNEXPECTED" <<<"$OUT" && fail "$what: $(grep '^UNEXPECTED' <<<"$OUT")"
    local all="$OUT"$'\n'"$ERR"
    case "$sig" in
    9)  # SIGKILL: only the launcher sees the signal; the survivors name the rank
        grep -Eq "task 1: Killed|signal 9|EXIT CODE: 9" <<<"$all" &&
            ok "$what: the launcher names the signal" || fail "$what: no message names SIGKILL: $ERR";;
    *)  # the crashing rank's own report (the backtrace, src/util/backtrace.c)
        local name; name=$(kill -l "$sig")
        grep -Eq "^\[courier\] rank 1 \(pid [0-9]+ on [^)]*\): SIG$name " <<<"$all" &&
            ok "$what: the rank reported its signal" || fail "$what: no crash report: $ERR";;
    esac
    if [ "${kind#srun}" != "$kind" ]; then   # the other launchers kill the others themselves
        grep -Eq "rank [02]: rank 1 \(pid [0-9]+\) on .*aborting the job" <<<"$all" &&
            ok "$what: a survivor named the dead rank" || fail "$what: no survivor's message: $ERR"
    fi
}

t_pmi2() {
    start_slurm
    need_mpi_plugin pmi2
    mpi_programs srun --mpi=pmi2 --overcommit
    run 60 srun --mpi=pmi2 --overcommit -n 3 "$PROBE" PMI-2; expect_pass "pmi_probe PMI-2 at 3 ranks"
    run 60 srun --mpi=pmi2 --overcommit -n 4 "$PROBE" PMI-2; expect_pass "pmi_probe PMI-2 at 4 ranks"
    run 60 srun --mpi=pmi2 --overcommit -n 3 --export=ALL,COURIER_PMI=1 "$PROBE" PMI-1
    expect_pass "pmi_probe forced to PMI-1 under srun --mpi=pmi2"
}

t_pmix() {
    start_slurm
    need_mpi_plugin pmix
    if readelf -d "$LIBMPI" | grep -qi pmix; then
        fail "libmpi.so depends on libpmix: $(readelf -d "$LIBMPI" | grep -i pmix)"
    else
        ok "libmpi.so does not depend on libpmix (it is loaded with dlopen)"
    fi
    mpi_programs srun --mpi=pmix --overcommit
    # Without a loadable libpmix (here: files that are not libraries first in
    # the search path) MPI_Init must stop with a message that says so.
    mkdir -p "$TMP/nopmix"
    echo "not a library" >"$TMP/nopmix/libpmix.so.2"
    cp "$TMP/nopmix/libpmix.so.2" "$TMP/nopmix/libpmix.so"
    local prog; prog=$(awk '{print $1}' <<<"$MPI_PROGS")
    run 60 srun --mpi=pmix --overcommit -n 2 --export="ALL,LD_LIBRARY_PATH=$TMP/nopmix" "$prog"
    [ "$RC" != 0 ] && grep -q "libpmix cannot be loaded" <<<"$ERR" &&
        ok "no usable libpmix: MPI_Init fails with a clear message" ||
        fail "no usable libpmix: status $RC, stderr $(tail -3 <<<"$ERR")"
    local n
    for n in 1 2 3 4; do
        run 60 srun --mpi=pmix --overcommit -n "$n" "$PROBE" PMIx; expect_pass "pmi_probe PMIx at $n ranks"
    done
}

t_pmi2_crash() {
    start_slurm
    need_mpi_plugin pmi2
    local n
    for n in 2 3 4; do crash_case srun-pmi2 "$n" 11 2000 srun --mpi=pmi2 --overcommit; done
    crash_case srun-pmi2 3 9 2000 srun --mpi=pmi2 --overcommit
    crash_case srun-pmi2 4 6 2000 srun --mpi=pmi2 --overcommit
}

t_pmix_crash() {
    start_slurm
    need_mpi_plugin pmix
    local n
    for n in 2 3 4; do crash_case srun-pmix "$n" 11 2000 srun --mpi=pmix --overcommit; done
    crash_case srun-pmix 3 9 2000 srun --mpi=pmix --overcommit
    crash_case srun-pmix 4 6 2000 srun --mpi=pmix --overcommit
}

t_hydra() {
    need_hydra
    mpi_programs mpiexec.mpich
    local n
    for n in 1 3 4; do run_hydra 60 -n "$n" "$PROBE" PMI-1; expect_pass "pmi_probe PMI-1 under Hydra at $n ranks"; done
    run_hydra 60 -pmi-port -n 3 "$PROBE" PMI-1; expect_pass "pmi_probe PMI-1 under Hydra -pmi-port"
    run 60 "$MPIEXEC" -n 3 "$PROBE" PMI-1; expect_pass "pmi_probe PMI-1 under Courier's mpiexec"
    run 60 "$MPIEXEC" -n 2 -env COURIER_PMI 2 "$PROBE" PMI-2
    [ "$RC" != 0 ] && grep -q "refused PMI version 2" <<<"$ERR" &&
        ok "COURIER_PMI=2 under Courier's mpiexec (PMI-1 only): a clear error" ||
        fail "COURIER_PMI=2 under Courier's mpiexec: status $RC, stderr $ERR"
}

t_hydra_crash() {
    need_hydra
    local n
    for n in 2 3 4; do crash_case hydra "$n" 11 2000; done
    crash_case hydra 3 9 2000
    # Courier's own mpiexec ends the job itself.
    crash_case courier-mpiexec 3 11 2000 "$MPIEXEC"
    # The launcher goes away (Hydra's proxy killed): the ranks must notice the
    # lost PMI connection and end by themselves.
    (cd "$TMP/run" && exec mpiexec.mpich -n 3 "$CRASH" -1 0) >"$TMP/out" 2>"$TMP/err" </dev/null &
    BGPID=$!
    local i pids=""
    for i in $(seq 200); do
        [ "$(grep -c '^ready' "$TMP/out")" = 3 ] && break
        sleep 0.05
    done
    pids=$(awk '/^ready/ {print $3}' "$TMP/out" | tr '\n' ' ')
    local proxy; proxy=$(pgrep -P "$BGPID" -f hydra_pmi_proxy | head -1)
    if [ -z "$proxy" ] || [ "$(wc -w <<<"$pids")" != 3 ]; then
        fail "launcher loss: job not ready (proxy '$proxy', ranks '$pids'): $(cat "$TMP/err")"
        return
    fi
    # Kill the proxy and time the ranks' ends precisely (pidfds).
    local ms
    ms=$(python3 - "$proxy" $pids <<'PY'
import os, select, signal, sys, time
proxy, ranks = int(sys.argv[1]), [int(p) for p in sys.argv[2:]]
fds = [os.pidfd_open(r) for r in ranks]
t0 = time.monotonic()
os.kill(proxy, signal.SIGKILL)
left = set(fds)
while left:
    ready, _, _ = select.select(list(left), [], [], 10)
    if not ready:
        break
    left -= set(ready)
print(int((time.monotonic() - t0) * 1000) if not left else -1)
PY
)
    # (Ended ranks may stay zombies a while: their new parent reaps them.)
    local p alive=0
    for p in $pids; do
        [ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] && alive=1
    done
    kill -KILL "$BGPID" 2>/dev/null   # mpiexec.mpich, if the proxy's death did not end it
    wait "$BGPID" 2>/dev/null; BGPID=
    # (Their message goes nowhere: their stderr went with the proxy.)
    if [ "$alive" = 0 ] && [ "$ms" -ge 0 ] && [ "$ms" -lt 2000 ]; then
        ok "launcher loss: the 3 ranks ended ${ms} ms after Hydra's proxy was killed"
        echo "measured: hydra proxy killed: ranks gone after $ms ms"
    else
        fail "launcher loss: ranks alive=$alive ${ms} ms after the proxy was killed"
        for p in $pids; do kill -KILL "$p" 2>/dev/null; done
    fi
}

NAME=${1:?test name}
if ! declare -F "t_$NAME" >/dev/null; then echo "unknown test $NAME"; exit 2; fi
"t_$NAME"
DONE=1
