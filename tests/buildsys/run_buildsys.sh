#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build-system and cluster-habit tests against an installed Courier
# (tests/buildsys/CMakeLists.txt lists them; docs/testing.md, label buildsys):
#   run_buildsys.sh install            install the build into $PREFIX (the fixture)
#   run_buildsys.sh wrappers           mpicc/mpicxx/mpifort options, as MPICH's and Open MPI's
#   run_buildsys.sh pkgconfig          mpi, mpich, mpi-c, mpi-cxx, mpi-fort, courier
#   run_buildsys.sh meson debian|pypi path|env   dependency('mpi') for C, C++, Fortran
#   run_buildsys.sh cmake path|home    FindMPI for C, CXX, Fortran (PATH or MPI_HOME)
#   run_buildsys.sh autotools          autoconf-archive's AX_MPI for C, C++, Fortran
#   run_buildsys.sh modules tcl|lmod   `module load courier` (environment-modules, Lmod)
#   run_buildsys.sh man                the installed man pages render (man -l)
#   run_buildsys.sh mpi4py             mpi4py built from source with our mpicc, its tests
# Environment: BUILD (the build tree), PREFIX (where the fixture installs),
# SRC (this directory).  Exit 0 pass, 1 fail, 77 skipped (with the reason).
set -uo pipefail
: "${BUILD:?}" "${PREFIX:?}" "${SRC:?}"
what=${1:?}
variant=${2:-}
# nothing from the caller's environment decides which MPI is found
unset MPICC MPICXX MPIFC MPIF90 MPIF77 MPI_HOME CC CXX FC F77 F90 LD_LIBRARY_PATH \
    COURIER_CC COURIER_CXX COURIER_FC MPICH_CC MPICH_CXX MPICH_FC MPICH_F77 MPICH_F90 \
    OMPI_CC OMPI_CXX OMPI_FC PKG_CONFIG_PATH CMAKE_PREFIX_PATH MODULEPATH LOADEDMODULES _LMFILES_
tmp=$(mktemp -d "${TMPDIR:-/tmp}/courier-buildsys.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL ($what${variant:+ $variant}): $*"
    exit 1
}
skip() {
    echo "SKIPPED ($what${variant:+ $variant}): $*"
    exit 77
}
ok() { echo "ok: $*"; }
version=$("$PREFIX/bin/mpicc" --showme:version 2>/dev/null | sed -n 's/.*Courier \([0-9.]*\).*/\1/p')
run_mpi() { timeout -k 5 60 "$PREFIX/bin/mpiexec" "$@" </dev/null; }

# run_check PROG LANG: the program is linked against Courier's libmpi (its
# runpath, no LD_LIBRARY_PATH) and passes at 1, 2 and 3 ranks
run_check() {
    local prog=$1 lang=$2 np out
    [ -x "$prog" ] || fail "$prog was not built"
    grep -q "libmpi.so.12 => $PREFIX/lib/libmpi.so.12" <<<"$(ldd "$prog")" \
        || fail "$prog does not load $PREFIX/lib/libmpi.so.12: $(ldd "$prog" | grep -i mpi)"
    for np in 1 2 3; do
        out=$(run_mpi -n $np "$prog" 2>&1) || fail "$prog at $np ranks: $out"
        for ((r = 0; r < np; r++)); do
            grep -q "^PASS $lang rank $r of $np\$" <<<"$out" || fail "$prog at $np ranks, rank $r: $out"
        done
    done
    ok "$prog ($lang) runs on Courier at 1, 2, 3 ranks"
}

case $what in
install)
    rm -rf "$PREFIX"
    cmake --install "$BUILD" --prefix "$PREFIX" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "cmake --install"; }
    for f in bin/mpicc bin/mpicxx bin/mpic++ bin/mpiCC bin/mpifort bin/mpif90 bin/mpif77 \
             bin/mpiexec lib/libmpi.so.12 include/mpi.h share/modulefiles/courier/$version \
             lib/pkgconfig/mpi.pc lib/pkgconfig/mpich.pc lib/pkgconfig/mpi-c.pc \
             lib/pkgconfig/mpi-cxx.pc lib/pkgconfig/mpi-fort.pc share/courier/valgrind/courier.supp \
             share/man/man1/mpicc.1 share/man/man1/mpiexec.1 share/man/man1/courier_info.1 \
             share/man/man3/MPI_Bcast.3; do
        [ -e "$PREFIX/$f" ] || fail "$f is not installed"
    done
    echo "PASS install into $PREFIX" ;;

wrappers)
    cc=$PREFIX/bin/mpicc
    cd "$tmp" || exit 1
    # -v and --version: the wrapper's line and the compiler's, exit 0, nothing linked
    out=$("$cc" -v 2>&1) || fail "mpicc -v exited $?: $out"
    grep -qx "mpicc for Courier $version" <<<"$(head -1 <<<"$out")" || fail "mpicc -v first line: $out"
    grep -q "gcc version\|clang version" <<<"$out" || fail "mpicc -v does not show the compiler's version: $out"
    grep -q "undefined reference" <<<"$out" && fail "mpicc -v tried to link: $out"
    [ -e a.out ] && fail "mpicc -v wrote a.out"
    out=$("$cc" --version 2>&1) || fail "mpicc --version exited $?"
    grep -q "^mpicc for Courier $version" <<<"$out" || fail "mpicc --version: $out"
    for w in mpicxx mpic++ mpiCC mpifort mpif90 mpif77; do
        out=$("$PREFIX/bin/$w" -v 2>&1) || fail "$w -v exited $?: $out"
        grep -qx "$w for Courier $version" <<<"$(head -1 <<<"$out")" || fail "$w -v: $out"
    done
    ok "-v and --version exit 0 without linking, every wrapper"

    # MPICH's information options
    show=$("$cc" -show)
    [[ "$show" == "gcc "* || "$show" == "cc "* ]] || fail "mpicc -show: $show"
    for want in "-I$PREFIX/include" "-L$PREFIX/lib" "-Wl,-rpath,$PREFIX/lib" "-lmpi"; do
        grep -q -- "$want" <<<"$show" || fail "mpicc -show lacks $want: $show"
    done
    for o in -compile-info -compile_info; do
        out=$("$cc" $o x.c)
        [ "$out" = "$(cut -d' ' -f1 <<<"$show") -I$PREFIX/include x.c" ] || fail "mpicc $o: $out"
    done
    for o in -link-info -link_info; do
        out=$("$cc" $o x.o)
        grep -q -- "x.o .*-L$PREFIX/lib .*-lmpi" <<<"$out" || fail "mpicc $o: $out"
    done
    [ "$("$cc" -show -c x.c)" = "$(cut -d' ' -f1 <<<"$show") -I$PREFIX/include -c x.c" ] \
        || fail "mpicc -show -c adds link flags: $("$cc" -show -c x.c)"
    ok "-show, -compile-info, -link-info (and _ forms)"

    # Open MPI's --showme forms
    [ "$("$cc" --showme:compile)" = "-I$PREFIX/include" ] || fail "--showme:compile: $("$cc" --showme:compile)"
    [ "$("$cc" -showme:compile)" = "-I$PREFIX/include" ] || fail "-showme:compile"
    [ "$("$cc" --showme:link)" = "-L$PREFIX/lib -Wl,-rpath,$PREFIX/lib -Wl,--enable-new-dtags -lmpi" ] \
        || fail "--showme:link: $("$cc" --showme:link)"
    [ "$("$cc" --showme:incdirs)" = "$PREFIX/include" ] || fail "--showme:incdirs"
    [ "$("$cc" --showme:libdirs)" = "$PREFIX/lib" ] || fail "--showme:libdirs"
    [ "$("$cc" --showme:libs)" = "mpi" ] || fail "--showme:libs: $("$cc" --showme:libs)"
    [ "$("$cc" --showme:version)" = "mpicc: Courier $version (Language: C)" ] || fail "--showme:version"
    [ "$("$PREFIX/bin/mpicxx" --showme:version)" = "mpicxx: Courier $version (Language: C++)" ] || fail "mpicxx --showme:version"
    [ "$("$PREFIX/bin/mpif77" --showme:version)" = "mpif77: Courier $version (Language: Fortran)" ] || fail "mpif77 --showme:version"
    [ "$("$cc" --showme x.c)" = "$show x.c" ] && fail "--showme x.c puts x.c after the link flags"
    grep -q -- "-I$PREFIX/include x.c -L" <<<"$("$cc" --showme x.c)" || fail "--showme x.c: $("$cc" --showme x.c)"
    "$cc" --showme:nonsense >/dev/null 2>&1 && fail "--showme:nonsense exits 0"
    grep -q -- "-fallow-argument-mismatch" <<<"$("$PREFIX/bin/mpifort" --showme:compile)" || fail "mpifort --showme:compile"
    ok "--showme, --showme:compile/link/incdirs/libdirs/libs/version"

    # choosing the compiler: option, then COURIER_*, MPICH_*, OMPI_*
    [ "$("$cc" -cc=mycc -show | cut -d' ' -f1)" = mycc ] || fail "-cc="
    [ "$(MPICH_CC=m1 "$cc" -show | cut -d' ' -f1)" = m1 ] || fail "MPICH_CC"
    [ "$(MPICH_CC=m1 COURIER_CC=c1 "$cc" -show | cut -d' ' -f1)" = c1 ] || fail "COURIER_CC before MPICH_CC"
    [ "$(COURIER_CC=c1 "$cc" -cc=o1 -show | cut -d' ' -f1)" = o1 ] || fail "-cc= before COURIER_CC"
    [ "$(MPICH_CXX=x1 "$PREFIX/bin/mpiCC" -show | cut -d' ' -f1)" = x1 ] || fail "MPICH_CXX (mpiCC)"
    [ "$("$PREFIX/bin/mpicxx" -cxx=x2 -show | cut -d' ' -f1)" = x2 ] || fail "-cxx="
    [ "$(MPICH_FC=f1 "$PREFIX/bin/mpifort" -show | cut -d' ' -f1)" = f1 ] || fail "MPICH_FC"
    [ "$(MPICH_FC=f1 MPICH_F77=f2 "$PREFIX/bin/mpif77" -show | cut -d' ' -f1)" = f2 ] || fail "MPICH_F77 (mpif77)"
    [ "$(MPICH_FC=f1 MPICH_F77=f2 "$PREFIX/bin/mpifort" -show | cut -d' ' -f1)" = f1 ] || fail "mpifort ignores MPICH_F77"
    [ "$("$PREFIX/bin/mpif90" -fc=f3 -show | cut -d' ' -f1)" = f3 ] || fail "-fc="
    ok "-cc=/-cxx=/-fc=, COURIER_CC, MPICH_CC/CXX/FC/F77"

    # compile-only and preprocess-only runs, shared objects, nothing to compile
    cp "$SRC/project/hello.c" "$SRC/project/hello.cpp" "$SRC/project/hello.f90" .
    "$cc" -c hello.c -o hello.o || fail "mpicc -c"
    [ -f hello.o ] || fail "mpicc -c wrote no hello.o"
    "$cc" -E hello.c >pre.i || fail "mpicc -E"
    grep -q "MPI_Allreduce" pre.i && grep -q "$PREFIX/include/mpi.h" pre.i || fail "mpicc -E did not read Courier's mpi.h"
    "$cc" -M hello.c >deps || fail "mpicc -M"
    grep -q "$PREFIX/include/mpi.h" deps || fail "mpicc -M does not list mpi.h: $(cat deps)"
    "$cc" -fPIC -shared -o libhello.so hello.c || fail "mpicc -fPIC -shared"
    grep -q "NEEDED.*libmpi.so.12" <<<"$(readelf -d libhello.so)" || fail "libhello.so does not need libmpi.so.12"
    out=$("$cc" 2>&1) && fail "mpicc without input files exited 0"
    grep -q "no input files" <<<"$out" || fail "mpicc without input files: $out"
    grep -q "undefined reference" <<<"$out" && fail "mpicc without input files tried to link: $out"
    ok "-c, -E, -M, -fPIC -shared, no input files"

    # response files: the compiler reads them; the wrapper sees -c inside
    printf '%s\n' "-c" "hello.c" "-o" "rsp.o" >compile.rsp
    "$cc" @compile.rsp || fail "mpicc @compile.rsp"
    [ -f rsp.o ] || fail "mpicc @compile.rsp wrote no rsp.o"
    [ "$("$cc" -show @compile.rsp)" = "$(cut -d' ' -f1 <<<"$show") -I$PREFIX/include @compile.rsp" ] \
        || fail "mpicc -show @compile.rsp links: $("$cc" -show @compile.rsp)"
    printf '%s\n' "hello.o" "-o" "hello_rsp" >link.rsp
    "$cc" @link.rsp || fail "mpicc @link.rsp"
    run_check ./hello_rsp c
    ok "response files"

    # installed programs find libmpi through their runpath
    "$cc" -o hello_c hello.c || fail "mpicc hello.c"
    grep -q "RUNPATH.*\[$PREFIX/lib\]" <<<"$(readelf -d hello_c)" || fail "no runpath: $(readelf -d hello_c | grep -i path)"
    run_check ./hello_c c
    "$PREFIX/bin/mpic++" -o hello_cxx hello.cpp || fail "mpic++ hello.cpp"
    run_check ./hello_cxx cxx
    "$PREFIX/bin/mpif90" -o hello_f hello.f90 || fail "mpif90 hello.f90"
    run_check ./hello_f fortran

    # -profile=NAME: a PMPI library that counts MPI_Allreduce calls, described
    # by NAME.conf on COURIER_PROFILE_PATH; -profile=NAME with only libNAME.so
    cat >count.c <<'EOF'
#include <mpi.h>
#include <stdio.h>
static int calls;
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    calls++;
    return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Finalize(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("profile: rank %d made %d MPI_Allreduce calls\n", rank, calls);
    return PMPI_Finalize();
}
EOF
    "$cc" -fPIC -shared -o libcount.so count.c || fail "building the profiling library"
    mkdir profiles
    printf 'PROFILE_PRELIB="-L%s -Wl,-rpath,%s -lcount"\nPROFILE_INCPATHS="-I%s"\n' "$tmp" "$tmp" "$tmp" >profiles/count.conf
    grep -q -- "-L$tmp -Wl,-rpath,$tmp -lcount .*-lmpi" <<<"$(COURIER_PROFILE_PATH=$tmp/profiles "$cc" -profile=count -show)" \
        || fail "-profile=count -show: $(COURIER_PROFILE_PATH=$tmp/profiles "$cc" -profile=count -show)"
    COURIER_PROFILE_PATH=$tmp/profiles "$cc" -profile=count -o hello_prof hello.c || fail "-profile=count"
    out=$(run_mpi -n 2 ./hello_prof) || fail "hello_prof: $out"
    grep -q "profile: rank 1 made 1 MPI_Allreduce calls" <<<"$out" || fail "the profile library was not linked: $out"
    grep -q -- "-lcount" <<<"$(COURIER_PROFILE_PATH=$tmp/profiles MPICC_PROFILE=count "$cc" -show)" || fail "MPICC_PROFILE"
    out=$("$cc" -profile=nosuch -show 2>&1) && fail "-profile=nosuch exits 0"
    grep -q "nosuch" <<<"$out" || fail "-profile=nosuch: $out"
    ok "-profile=NAME, MPICC_PROFILE"

    # -static-mpi: a clear answer when there is no libmpi.a
    if [ ! -e "$PREFIX/lib/libmpi.a" ]; then
        out=$("$cc" -static-mpi -o x hello.c 2>&1) && fail "-static-mpi without libmpi.a exited 0"
        grep -q "static-mpi.*libmpi.a" <<<"$out" || fail "-static-mpi: $out"
    fi
    grep -q -- "--showme:compile" <<<"$("$cc" -help)" || fail "mpicc -help"
    echo "PASS wrappers" ;;

pkgconfig)
    command -v pkg-config >/dev/null || skip "pkg-config is not installed"
    export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
    for m in mpi mpich mpi-c mpi-cxx mpi-fort courier ompi-c ompi-cxx ompi-fort; do
        [ "$(pkg-config --modversion $m)" = "$version" ] || fail "pkg-config --modversion $m"
        grep -q -- "-I$PREFIX/include" <<<"$(pkg-config --cflags $m)" || fail "pkg-config --cflags $m"
        grep -q -- "-L$PREFIX/lib .*-lmpi" <<<"$(pkg-config --libs $m)" || fail "pkg-config --libs $m: $(pkg-config --libs $m)"
    done
    ok "mpi mpich mpi-c mpi-cxx mpi-fort courier ompi-c ompi-cxx ompi-fort: version $version, prefix $PREFIX"
    cd "$tmp" || exit 1
    # shellcheck disable=SC2046  # pkg-config prints words
    gcc -o hello_c "$SRC/project/hello.c" $(pkg-config --cflags --libs mpi-c) || fail "gcc with mpi-c"
    run_check ./hello_c c
    # shellcheck disable=SC2046
    g++ -o hello_cxx "$SRC/project/hello.cpp" $(pkg-config --cflags --libs mpi-cxx) || fail "g++ with mpi-cxx"
    run_check ./hello_cxx cxx
    if command -v gfortran >/dev/null; then
        # shellcheck disable=SC2046
        gfortran -fallow-argument-mismatch -o hello_f "$SRC/project/hello.f90" $(pkg-config --cflags --libs mpi-fort) \
            || fail "gfortran with mpi-fort"
        run_check ./hello_f fortran
    fi
    echo "PASS pkgconfig" ;;

meson)
    case $variant in
    debian*)
        meson=(/usr/bin/meson)
        [ -x /usr/bin/meson ] || skip "Debian's meson is not installed (apt-get install meson)" ;;
    pypi*)
        dir=${COURIER_MESON_PYPI:-/opt/courier-ci/meson-pypi}
        [ -d "$dir/mesonbuild" ] || skip "no meson from PyPI in $dir (.ci/run installs it with pip --target)"
        export PYTHONPATH=$dir  # ninja runs meson again (Fortran module scanning)
        meson=(python3 -m mesonbuild.mesonmain) ;;
    *) fail "meson variant debian-path, debian-env, pypi-path or pypi-env" ;;
    esac
    command -v ninja >/dev/null || skip "ninja is not installed"
    mv=$("${meson[@]}" --version) || fail "meson --version"
    case $variant in
    *-path) export PATH=$PREFIX/bin:$PATH ;;
    *-env)
        export MPICC=$PREFIX/bin/mpicc MPICXX=$PREFIX/bin/mpicxx MPIFC=$PREFIX/bin/mpifort
        # meson >= 1.3 runs $MPICC and every mpicc on PATH and takes the one
        # with the highest version (MPICH's 4.x beats Courier's 0.x): hide
        # other MPIs' wrappers, so the test shows that meson reads MPICC
        mkdir "$tmp/hide"
        for w in mpicc mpicxx mpic++ mpiCC mpifort mpif90 mpif77; do
            printf '#!/bin/sh\nexit 127\n' >"$tmp/hide/$w"
            chmod +x "$tmp/hide/$w"
        done
        export PATH=$tmp/hide:$PATH ;;
    esac
    if [[ "$mv" == 0.* || "$mv" == 1.[012].* ]] && pkg-config --exists ompi-c 2>/dev/null; then
        # meson < 1.3 asks pkg-config for Open MPI's ompi-c before it runs
        # mpicc, and Open MPI's is installed here: put Courier's first, as
        # `module load courier` does (docs/install.md)
        echo "note: Open MPI's ompi-c.pc is installed and meson $mv asks pkg-config first;" \
             "PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig as module load courier sets it"
        export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
    fi
    "${meson[@]}" setup "$tmp/b" "$SRC/project" >"$tmp/setup.log" 2>&1 || { cat "$tmp/setup.log"; fail "meson $mv setup"; }
    cat "$tmp/setup.log"
    n=$(grep -Eci "Run-time dependency mpi.* found: YES $version( |$)" "$tmp/setup.log")
    [ "$n" -eq 3 ] || fail "meson $mv found Courier $version for $n of 3 languages"
    ninja -C "$tmp/b" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "ninja"; }
    run_check "$tmp/b/hello_c" c
    run_check "$tmp/b/hello_cxx" cxx
    run_check "$tmp/b/hello_f" fortran
    echo "PASS meson $mv ($variant)" ;;

cmake)
    case $variant in
    path) export PATH=$PREFIX/bin:$PATH ;;
    home) export MPI_HOME=$PREFIX ;;
    *) fail "cmake variant path or home" ;;
    esac
    cmake -S "$SRC/project" -B "$tmp/b" >"$tmp/cfg.log" 2>&1 || { cat "$tmp/cfg.log"; fail "cmake configure"; }
    grep BUILDSYS_ "$tmp/cfg.log"
    for l in C:mpicc CXX:mpicxx Fortran:mpifort; do
        grep -Eq "BUILDSYS_MPI_${l%%:*}_COMPILER=$PREFIX/bin/(${l#*:}|mpic\+\+|mpif90)$" "$tmp/cfg.log" \
            || fail "FindMPI did not pick Courier's ${l#*:} for ${l%%:*}"
        grep -q "BUILDSYS_MPI_${l%%:*}_LIBRARIES=.*$PREFIX/lib/libmpi.so" "$tmp/cfg.log" \
            || fail "FindMPI did not pick Courier's libmpi for ${l%%:*}"
    done
    cmake --build "$tmp/b" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "cmake --build"; }
    run_check "$tmp/b/hello_c" c
    run_check "$tmp/b/hello_cxx" cxx
    run_check "$tmp/b/hello_f" fortran
    echo "PASS cmake FindMPI ($variant)" ;;

autotools)
    command -v autoreconf >/dev/null && command -v aclocal >/dev/null || skip "autoconf and automake are not installed"
    [ -n "$(aclocal --print-ac-dir)" ] && [ -f "$(aclocal --print-ac-dir)/ax_mpi.m4" ] \
        || skip "autoconf-archive (ax_mpi.m4) is not installed"
    export PATH=$PREFIX/bin:$PATH
    cp "$SRC/project/configure.ac" "$SRC/project/Makefile.in" "$SRC/project/hello."* "$tmp/"
    cd "$tmp" || exit 1
    autoreconf -fi >autoreconf.log 2>&1 || { cat autoreconf.log; fail "autoreconf"; }
    ./configure >configure.log 2>&1 || { cat configure.log; fail "configure"; }
    cat configure.log
    for v in MPICC=mpicc MPICXX=mpic++ MPIFC=mpif90; do
        grep -q "^${v%%=*}='${v#*=}'" config.log || fail "AX_MPI did not choose ${v#*=}: $(grep "^${v%%=*}=" config.log)"
    done
    grep -Eq "^MPILIBS=' ?'$" config.log || fail "AX_MPI needed extra libraries: $(grep ^MPILIBS= config.log)"
    make >make.log 2>&1 || { cat make.log; fail "make"; }
    run_check ./hello_c c
    run_check ./hello_cxx cxx
    run_check ./hello_f fortran
    echo "PASS autotools AX_MPI" ;;

modules)
    case $variant in
    tcl)
        modulecmd=""
        for f in "${COURIER_MODULECMD_TCL:-}" /usr/lib/x86_64-linux-gnu/modulecmd.tcl /usr/lib/modulecmd.tcl \
                 /usr/share/modules/libexec/modulecmd.tcl \
                 /opt/courier-ci/environment-modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl; do
            [ -n "$f" ] && [ -f "$f" ] && { modulecmd=$f; break; }
        done
        [ -n "$modulecmd" ] || skip "environment-modules' modulecmd.tcl not found (.ci/run unpacks it into /opt/courier-ci)"
        command -v tclsh >/dev/null || skip "tclsh is not installed"
        module() { eval "$(tclsh "$modulecmd" bash "$@")"; } ;;
    lmod)
        lmodcmd=${COURIER_LMOD_CMD:-/usr/share/lmod/lmod/libexec/lmod}
        [ -x "$lmodcmd" ] || skip "Lmod is not installed (apt-get install lmod)"
        module() { eval "$("$lmodcmd" bash "$@")"; } ;;
    *) fail "modules variant tcl or lmod" ;;
    esac
    mkdir -p "$tmp/other/mpi"
    printf '#%%Module1.0\nsetenv OTHER_MPI 1\n' >"$tmp/other/mpi/other"
    export MODULEPATH=$PREFIX/share/modulefiles:$tmp/other
    unset MANPATH
    module load courier 2>"$tmp/err" || fail "module load courier: $(cat "$tmp/err")"
    [ "$(command -v mpicc)" = "$PREFIX/bin/mpicc" ] || fail "mpicc after module load: $(command -v mpicc)"
    [ "$(command -v mpiexec)" = "$PREFIX/bin/mpiexec" ] || fail "mpiexec after module load"
    [ "${MPI_HOME:-}" = "$PREFIX" ] || fail "MPI_HOME=${MPI_HOME:-}"
    [ "${MPICC:-}" = "$PREFIX/bin/mpicc" ] || fail "MPICC=${MPICC:-}"
    [[ ":$PKG_CONFIG_PATH:" == *":$PREFIX/lib/pkgconfig:"* ]] || fail "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
    [[ ":$CMAKE_PREFIX_PATH:" == *":$PREFIX:"* ]] || fail "CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"
    [[ "$MANPATH" == "$PREFIX/share/man:"* ]] || fail "MANPATH=$MANPATH"
    [ "$(pkg-config --modversion mpi)" = "$version" ] || fail "pkg-config after module load"
    if command -v man >/dev/null; then
        [ "$(man -w mpicc)" = "$PREFIX/share/man/man1/mpicc.1" ] || fail "man -w mpicc: $(man -w mpicc 2>&1)"
        [ "$(man -w MPI_Bcast)" = "$PREFIX/share/man/man3/MPI_Bcast.3" ] || fail "man -w MPI_Bcast"
        man -w ls >/dev/null 2>&1 || [ ! -e /usr/share/man/man1/ls.1.gz ] || fail "MANPATH hides the system's pages"
    fi
    mpicc -o "$tmp/hello_c" "$SRC/project/hello.c" || fail "mpicc after module load"
    run_check "$tmp/hello_c" c
    # one MPI at a time
    module load mpi/other 2>"$tmp/err"
    [ -z "${OTHER_MPI:-}" ] || [ "$variant" = lmod ] || fail "another mpi module loaded beside courier"
    [ "$variant" = lmod ] && [ -n "${OTHER_MPI:-}" ] && module unload mpi/other 2>/dev/null
    module unload courier 2>"$tmp/err" || fail "module unload courier: $(cat "$tmp/err")"
    [[ ":$PATH:" != *":$PREFIX/bin:"* ]] || fail "$PREFIX/bin still on PATH after unload: $PATH"
    [ "$(command -v mpicc)" != "$PREFIX/bin/mpicc" ] || fail "Courier's mpicc still found after unload"
    [ -z "${MPI_HOME:-}" ] || fail "MPI_HOME left after unload"
    module load mpi/other 2>"$tmp/err" || fail "loading the other mpi module"
    [ -n "${OTHER_MPI:-}" ] || fail "the other mpi module did not load"
    module load courier 2>"$tmp/err"
    [ -z "${MPI_HOME:-}" ] || fail "courier loaded beside another mpi module (conflict mpi)"
    grep -qi "conflict\|cannot load" "$tmp/err" || fail "no conflict message: $(cat "$tmp/err")"
    echo "PASS modules ($variant)" ;;

man)
    command -v man >/dev/null || skip "man is not installed"
    for page in man1/mpicc.1 man1/mpiexec.1 man1/courier_info.1 man3/MPI_Bcast.3 man3/MPI_Send.3 man3/MPI_Allreduce.3; do
        f=$PREFIX/share/man/$page
        [ -f "$f" ] || fail "$page is not installed"
        out=$(MANWIDTH=100 man -l "$f" 2>"$tmp/err") || fail "man -l $page: $(cat "$tmp/err")"
        [ -s "$tmp/err" ] && fail "man -l $page warns: $(cat "$tmp/err")"
        grep -q "^NAME" <<<"$out" && grep -q "^SYNOPSIS" <<<"$out" || fail "man -l $page: no NAME or SYNOPSIS"
    done
    out=$(MANWIDTH=100 man -l "$PREFIX/share/man/man3/MPI_Bcast.3")
    grep -Fq "int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);" <<<"$out" \
        || fail "MPI_Bcast(3) lacks the C synopsis: $out"
    grep -q "MPI_Bcast(buffer, count, datatype, root, comm, ierror)" <<<"$out" || fail "MPI_Bcast(3) lacks the Fortran synopsis"
    grep -q "MPI_ERR_ROOT" <<<"$out" || fail "MPI_Bcast(3) does not list MPI_ERR_ROOT"
    grep -q "root" <<<"$out" && grep -Eq "^ +comm +communicator" <<<"$out" || fail "MPI_Bcast(3) argument descriptions"
    out=$(MANWIDTH=100 man -l "$PREFIX/share/man/man1/mpicc.1")
    grep -q -- "--showme:compile" <<<"$out" || fail "mpicc(1) does not describe --showme:compile"
    for f in mpicxx mpic++ mpiCC mpifort mpif90 mpif77 mpirun; do
        [ -e "$PREFIX/share/man/man1/$f.1" ] || fail "no man page for $f"
    done
    n=$(find "$PREFIX/share/man/man3" -name 'MPI_*.3' | wc -l)
    [ "$n" -gt 300 ] || fail "only $n MPI procedure pages"
    echo "PASS man ($n procedure pages)" ;;

mpi4py)
    exec bash "$SRC/run_mpi4py.sh" ;;

*) fail "unknown test" ;;
esac
