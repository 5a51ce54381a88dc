#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run MPICH's own test suite (the test/mpi directory of MPICH's source, which
# the user fetches; nothing of it is part of this repository) against Courier,
# or against MPICH or Open MPI for comparison on the same machine: prepare the
# suite (autotools, once), configure it standalone with the MPI's compiler
# wrappers, build the chosen directories, run them with MPICH's runtests
# script under a per-test time limit, re-run the failures once, and print
# passed/total per directory and the failing tests.  Not part of `make check`.
#
#   tests/suites/mpich-testsuite.sh [options] TEST_MPI_DIR [DIR...]
#
# TEST_MPI_DIR is test/mpi of an MPICH checkout or release (a git checkout
# needs confdb/, maint/version.m4 and src/binding/mpix.txt beside it, two
# levels up, and autoconf, automake and libtool installed).  DIRs default to the directories of the
# conformance issue.  `--help` lists the options; docs/testing.md explains.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
results_py="$here/mpich_testsuite_results.py"

default_dirs="group topo init errhan attr info comm datatype pt2pt coll part session mpi_t"
smoke_tests="attr/attrt:2 comm/dup:2 datatype/contents:1 pt2pt/sendrecv2:2 coll/bcasttest:4 coll/reduce:5 topo/cartmap1:4 group/groupcreate:4 init/version:1 info/infodup:1 errhan/predef_eh:2"

usage() {
    cat <<EOF
usage: $0 [options] TEST_MPI_DIR [DIR...]
  TEST_MPI_DIR          MPICH's test/mpi (a git checkout or a release's)
  DIR...                directories of the suite to run
                        (default: $default_dirs)
options:
  --mpi=courier         Courier built in this repository: $repo/build/bin (default)
  --mpi=mpich           Debian's MPICH: mpicc.mpich, mpiexec.mpich
  --mpi=openmpi         Debian's Open MPI: mpicc.openmpi, mpirun.openmpi --oversubscribe
  --with-mpi=PREFIX     another MPI: PREFIX/bin/mpicc, mpicxx, mpif77, mpifort, mpiexec
                        (MPICC, MPICXX, MPIF77, MPIFC, MPIEXEC in the environment
                        override any of these)
  --name=LABEL          name of this run (default: the --mpi value, or "custom")
  --workdir=DIR         where the suite is prepared, built and run
                        (default: $repo/build/mpich-testsuite); results in DIR/LABEL/results
  --timeout=SECONDS     time limit of one test (default 300; a test's own
                        timeLimit= in its list wins), scaled by --timeout-multiplier=F
  --maxnp=N             run no test with more than N processes (default: as listed)
  --lists=L1,L2         which list files of each directory (default testlist,testlist.dtp;
                        add testlist.cvar for MPICH's per-algorithm collective runs)
  --fortran, --cxx      also configure the Fortran and C++ tests (default: C only)
  --no-rerun            do not re-run the failed tests once
  --jobs=N              parallel compilations while building (default 2)
  --smoke               build and run only eleven small tests, one or two per area (a few minutes)
  --compare=LABEL       after the run, list the tests that pass in the run LABEL
                        (same --workdir, e.g. mpich) and fail in this one
EOF
}

mpi=courier name="" prefix="" workdir="$repo/build/mpich-testsuite"
timeout_s=300 multiplier=1 maxnp="" lists="testlist,testlist.dtp"
fortran=0 cxx=0 rerun=1 jobs=2 smoke=0 compare_with=""
positional=()
for a in "$@"; do
    case "$a" in
        --mpi=*) mpi=${a#*=} ;;
        --with-mpi=*) mpi=custom; prefix=${a#*=} ;;
        --name=*) name=${a#*=} ;;
        --workdir=*) workdir=${a#*=} ;;
        --timeout=*) timeout_s=${a#*=} ;;
        --timeout-multiplier=*) multiplier=${a#*=} ;;
        --maxnp=*) maxnp=${a#*=} ;;
        --lists=*) lists=${a#*=} ;;
        --fortran) fortran=1 ;;
        --cxx) cxx=1 ;;
        --no-rerun) rerun=0 ;;
        --jobs=*) jobs=${a#*=} ;;
        --smoke) smoke=1 ;;
        --compare=*) compare_with=${a#*=} ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "mpich-testsuite: unknown option $a" >&2; usage >&2; exit 2 ;;
        *) positional+=("$a") ;;
    esac
done
if [ ${#positional[@]} -lt 1 ]; then usage >&2; exit 2; fi
checkout=$(cd "${positional[0]}" 2>/dev/null && pwd) \
    || { echo "mpich-testsuite: ${positional[0]}: no such directory" >&2; exit 2; }
if [ ! -f "$checkout/runtests.in" ] || [ ! -f "$checkout/configure.ac" ]; then
    echo "mpich-testsuite: $checkout is not MPICH's test/mpi (no runtests.in, configure.ac)" >&2
    exit 2
fi
dirs=("${positional[@]:1}")
if [ ${#dirs[@]} -eq 0 ]; then read -r -a dirs <<< "$default_dirs"; fi
name=${name:-$mpi}

# ---- the MPI under test: compiler wrappers and launcher ----
launcher_args=() extra_conf=()
case "$mpi" in
    courier)
        bin="$repo/build/bin"
        if [ ! -x "$bin/mpicc" ] || [ ! -x "$bin/mpiexec" ]; then
            echo "mpich-testsuite: $bin/mpicc or mpiexec missing: run 'make' in $repo first" >&2
            exit 2
        fi
        cc="$bin/mpicc" cxx_w="$bin/mpicxx" f77="$bin/mpif77" fc="$bin/mpifort" run="$bin/mpiexec" ;;
    mpich)
        cc=mpicc.mpich cxx_w=mpicxx.mpich f77=mpif77.mpich fc=mpifort.mpich run=mpiexec.mpich ;;
    openmpi)
        cc=mpicc.openmpi cxx_w=mpicxx.openmpi f77=mpif77.openmpi fc=mpifort.openmpi run=mpirun.openmpi
        launcher_args=(--oversubscribe)
        # MPICH's suite (dtpools, some tests) calls MPI-1 names that Open MPI's
        # mpi.h hides by default; its library still has them.
        extra_conf=(CPPFLAGS=-DOMPI_OMIT_MPI1_COMPAT_DECLS=0)
        if [ "$(id -u)" -eq 0 ]; then launcher_args+=(--allow-run-as-root); fi ;;
    custom)
        cc="$prefix/bin/mpicc" cxx_w="$prefix/bin/mpicxx" f77="$prefix/bin/mpif77"
        fc="$prefix/bin/mpifort" run="$prefix/bin/mpiexec" ;;
    *) echo "mpich-testsuite: --mpi must be courier, mpich or openmpi (or use --with-mpi=)" >&2; exit 2 ;;
esac
cc=${MPICC:-$cc} cxx_w=${MPICXX:-$cxx_w} f77=${MPIF77:-$f77} fc=${MPIFC:-$fc} run=${MPIEXEC:-$run}
for tool in "$cc" "$run"; do
    command -v "$tool" >/dev/null || { echo "mpich-testsuite: $tool not found" >&2; exit 2; }
done
cc=$(command -v "$cc") run=$(command -v "$run")

log() { printf '[mpich-testsuite %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

# ---- prepare the suite once: a copy of the checkout with configure generated ----
src="$workdir/src"
mkdir -p "$workdir"
if [ "$(cat "$src/.prepared-from" 2>/dev/null)" != "$checkout" ]; then
    log "preparing the suite from $checkout in $src"
    rm -rf "$src"
    cp -a "$checkout" "$src"
    if [ ! -x "$src/configure" ]; then
        confdb="" version=""
        for c in "$checkout/confdb" "$checkout/../../confdb"; do [ -d "$c" ] && { confdb=$c; break; }; done
        for v in "$checkout/version.m4" "$checkout/../../maint/version.m4"; do [ -f "$v" ] && { version=$v; break; }; done
        if [ -z "$confdb" ] || [ -z "$version" ]; then
            echo "mpich-testsuite: $checkout has no configure and no confdb/ + maint/version.m4 beside it;" >&2
            echo "  check out test/mpi, confdb and maint/version.m4 of MPICH together (see docs/testing.md)" >&2
            rm -rf "$src"; exit 2
        fi
        for t in autoreconf automake libtoolize; do
            command -v $t >/dev/null || { echo "mpich-testsuite: $t missing (apt install autoconf automake libtool)" >&2; rm -rf "$src"; exit 2; }
        done
        cp -a "$confdb" "$src/confdb"
        cp -a "$confdb" "$src/dtpools/confdb"
        cp "$version" "$src/version.m4"
        if ! (cd "$src" && ./autogen.sh && autoreconf -if) > "$workdir/autogen.log" 2>&1; then
            echo "mpich-testsuite: autogen failed, see $workdir/autogen.log" >&2; rm -rf "$src"; exit 1
        fi
    fi
    # include/mtest_mpix.h is generated by MPICH's bindings generator from
    # src/binding/mpix.txt (names MPICH still spells MPIX_): the same rule
    # here, or an empty header when that file is not beside the checkout.
    if [ ! -f "$src/include/mtest_mpix.h" ]; then
        mpix="$checkout/../../src/binding/mpix.txt"
        {
            echo "#ifndef MTEST_MPIX_H_INCLUDED"
            echo "#define MTEST_MPIX_H_INCLUDED"
            if [ -f "$mpix" ]; then
                grep -oE '^MPI_[A-Za-z0-9_]+' "$mpix" | sed -E 's/^MPI_(.*)$/#define MPI_\1 MPIX_\1/'
            fi
            echo "#endif"
        } > "$src/include/mtest_mpix.h"
    fi
    echo "$checkout" > "$src/.prepared-from"
fi

# ---- configure standalone against the chosen MPI ----
build="$workdir/$name"
results="$build/results"
# No GPU tests: a CUDA toolkit without a GPU makes every test abort in MTestAlloc.
conf=("$src/configure" MPICC="$cc" MPIEXEC="$run" --without-cuda --without-ze --without-hip "${extra_conf[@]}")
if [ $cxx -eq 1 ]; then conf+=(MPICXX="$cxx_w"); else conf+=(--disable-cxx); fi
if [ $fortran -eq 1 ]; then conf+=(MPIF77="$f77" MPIFC="$fc"); else conf+=(--disable-fortran); fi
mkdir -p "$build"
if [ "$(cat "$build/.configured-with" 2>/dev/null)" != "$checkout ${conf[*]}" ] || [ ! -x "$build/runtests" ]; then
    log "configuring for $name ($cc, $run) in $build"
    if ! (cd "$build" && env -u CC -u CFLAGS "${conf[@]}") > "$build/configure.log" 2>&1; then
        echo "mpich-testsuite: configure failed, see $build/configure.log (and config.log there)" >&2
        exit 1
    fi
    echo "$checkout ${conf[*]}" > "$build/.configured-with"
fi

# runtests relies on mpiexec honouring MPIEXEC_TIMEOUT; not every launcher
# does, so every run goes through this wrapper, which enforces it.
wrapper="$build/mpiexec-timeout"
{
    echo '#!/usr/bin/env bash'
    echo "# written by mpich-testsuite.sh: run $run under MPIEXEC_TIMEOUT (set by runtests)"
    echo "t=\${MPIEXEC_TIMEOUT:-$timeout_s}"
    printf 'timeout -k 10 "$t" %q' "$run"
    for x in "${launcher_args[@]}"; do printf ' %q' "$x"; done
    echo ' "$@"'
    echo 'rc=$?'
    echo "if [ \$rc -eq 124 ] || [ \$rc -eq 137 ]; then echo \"mpich-testsuite: TIMEOUT: killed after \${t}s (hang)\"; fi"
    echo 'exit $rc'
} > "$wrapper"
chmod +x "$wrapper"

# Processes a test left behind (cwd inside the build directory) are ended
# by their process id; nothing else is touched.
reap() {
    local p cwd left=0
    for p in /proc/[0-9]*; do
        cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
        case "$cwd" in "$build"/*)
            [ "${p#/proc/}" = "$$" ] && continue
            kill -9 "${p#/proc/}" 2>/dev/null && left=$((left + 1)) ;;
        esac
    done
    if [ $left -gt 0 ]; then log "ended $left process(es) left behind in $build"; fi
}

runtests() {   # runtests LISTS DIRS(comma) JUNIT
    (cd "$build" && env MPITEST_TIMEOUT="$timeout_s" MPITEST_TIMEOUT_MULTIPLIER="$multiplier" \
        ./runtests -srcdir="$src" -tests="$1" -testdirs="$2" -mpiexec="$wrapper" \
        ${maxnp:+-maxnp=$maxnp} -junitfile="$3" -tapfile="${3%.junit.xml}.tap")
}

mkdir -p "$results"
log "building the suite's support libraries"
(cd "$build" && make -C util && make -C dtpools) > "$build/build-support.log" 2>&1 \
    || { echo "mpich-testsuite: building util/ or dtpools/ failed, see $build/build-support.log" >&2; exit 1; }

if [ $smoke -eq 1 ]; then
    dirs=()
    for t in $smoke_tests; do
        d=${t%%/*} rest=${t#*/} prog=${rest%%:*} np=${rest#*:}
        [ -d "$src/$d" ] || continue
        if [[ " ${dirs[*]} " != *" $d "* ]]; then dirs+=("$d"); : > "$build/$d/testlist.smoke"; fi
        echo "$prog $np" >> "$build/$d/testlist.smoke"
    done
    lists=testlist.smoke
fi

present=()
for d in "${dirs[@]}"; do
    rm -f "$results/$d.junit.xml" "$results/$d.rerun.junit.xml" "$results/$d.tap" "$results/$d.rerun.tap"
    if [ ! -d "$src/$d" ]; then
        log "$d: not in this version of the suite, skipped"
        continue
    fi
    present+=("$d")
    log "$d: building"
    # Build everything of the directory up front (in parallel); a program
    # that fails to build is built again by runtests, which reports it.
    (cd "$build" && make -k -j"$jobs" -C "$d" $( [ $smoke -eq 1 ] && awk '{print $1}' "$build/$d/testlist.smoke")) \
        > "$results/$d.build.log" 2>&1 || true
    log "$d: running"
    runtests "$lists" "$d" "$results/$d.junit.xml" > "$results/$d.log" 2>&1 || true
    reap
done

if [ $rerun -eq 1 ] && [ ${#present[@]} -gt 0 ]; then
    again=$(python3 "$results_py" rerun-lists "$results" "$build" "$src" "$lists" "${present[@]}")
    if [ -n "$again" ]; then
        IFS=, read -r -a again_dirs <<< "$again"
        for d in "${again_dirs[@]}"; do
            top=${d%%/*}
            log "$d: re-running $(grep -vc '^!' "$build/$d/testlist.rerun") failed test(s) once"
            (cd "$build" && env MPITEST_TIMEOUT="$timeout_s" MPITEST_TIMEOUT_MULTIPLIER="$multiplier" \
                ./runtests -srcdir="$src" -tests=testlist.rerun -testdirs="$d" -mpiexec="$wrapper" \
                ${maxnp:+-maxnp=$maxnp} -junitfile="$results/$top.rerun.part.xml") \
                >> "$results/$top.rerun.log" 2>&1 || true
            cat "$results/$top.rerun.part.xml" >> "$results/$top.rerun.junit.xml"
            rm -f "$results/$top.rerun.part.xml" "$build/$d/testlist.rerun"
            reap
        done
    fi
fi

echo
echo "MPICH test suite ($checkout) against $name: $cc, $run"
echo "time limit ${timeout_s}s x $multiplier per test; lists $lists; $(date '+%Y-%m-%d %H:%M')"
python3 "$results_py" summary "$results" "$name" "${present[@]}"
echo "details: $results/<dir>.log (runtests output), <dir>.junit.xml, summary.txt, failures.txt"
if [ -n "$compare_with" ]; then
    echo
    echo "tests that pass with $compare_with and fail with $name:"
    python3 "$results_py" compare "$workdir/$compare_with/results" "$results" "${present[@]}" | sed 's/\t/\n      /; s/^/  /'
fi
