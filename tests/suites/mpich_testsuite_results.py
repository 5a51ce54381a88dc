# SPDX-License-Identifier: MIT
# Results of MPICH's test suite (test/mpi) as run by mpich-testsuite.sh:
# reads the JUnit files that MPICH's runtests script writes (one per
# directory, plus one per directory for the re-run of the failures), prints
# passed/total per directory and the failing tests with the first line that
# tells why, writes the test lists for the re-run, and compares two runs.
#
#   mpich_testsuite_results.py summary RESULTS_DIR LABEL DIR...
#   mpich_testsuite_results.py rerun-lists RESULTS_DIR BUILD_DIR SRC_DIR LISTS DIR...
#   mpich_testsuite_results.py compare RESULTS_REF RESULTS_OTHER DIR...
#
# A test is named "dir/program np args env" (dir relative to test/mpi,
# args and env as runtests joins them), so the same program run with other
# arguments or settings is another test.  runtests writes its JUnit file
# without XML escaping, so it is read with regular expressions, not an XML
# parser.
import os
import re
import sys

TESTCASE = re.compile(r'^\s*<testcase name="\d* ?- (?P<name>.*?)"(?: time="(?P<time>[^"]*)")?>')
TIMEOUT_MARK = "mpich-testsuite: TIMEOUT"


def test_key(path, np, args, env):
    """The name of one test: dir/prog np args env, single spaces."""
    path = path[2:] if path.startswith("./") else path
    return " ".join(w for w in [path, str(np)] + args + env if w != "")


def parse_name(name):
    """Split runtests' testcase name (./dir/prog np args env) into parts."""
    words = name.split()
    path = words[0]
    np = words[1] if len(words) > 1 and words[1].isdigit() else ""
    rest = words[2:] if np else words[1:]
    return path[2:] if path.startswith("./") else path, np, rest


def read_junit(fname):
    """Yield (name, status, output, seconds) for every testcase of a file.

    status is "pass", "fail" or "skip"; output is the test's output lines
    (runtests prefixes them with "## ")."""
    if not os.path.exists(fname):
        return
    with open(fname, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = TESTCASE.match(lines[i])
        if not m:
            i += 1
            continue
        name = " ".join(m.group("name").split())
        seconds = float(m.group("time")) if m.group("time") else 0.0
        if lines[i].rstrip().endswith("</testcase>"):
            yield name, "pass", [], seconds
            i += 1
            continue
        status, output = "pass", []
        i += 1
        while i < len(lines) and "</testcase>" not in lines[i]:
            line = lines[i]
            if "<failure" in line:
                status = "fail"
            elif "<skipped" in line:
                status = "skip" if status != "fail" else status
            if line.startswith("## ") or line == "##":
                output.append(line[3:])
            i += 1
        yield name, status, output, seconds
        i += 1


def list_entries(build, src, reldir, lists):
    """The test lines of one directory's lists, as runtests reads them:
    (program, np, args, env, line) with np "" for a subdirectory entry."""
    entries = []
    for lst in lists.split(","):
        fname = os.path.join(build, reldir, lst)
        if not (os.path.isfile(fname) and os.path.getsize(fname) > 0):
            fname = os.path.join(src, reldir, lst)
        if not os.path.isfile(fname):
            continue
        with open(fname, encoding="utf-8", errors="replace") as f:
            for raw in f:
                line = re.sub(r"#.*", "", raw).strip()
                if not line or line.startswith("!"):
                    continue
                words = line.split()
                args, env = [], []
                for w in words[2:]:
                    if w.startswith("arg="):
                        args.append(w[4:])
                    elif w.startswith("env="):
                        env.append(w[4:])
                np = words[1] if len(words) > 1 else "2"
                entries.append((words[0], np, args, env, line))
    return entries


def setup_lines(build, src, reldir, lists):
    """The "!dir:target" lines of a directory's lists (support builds)."""
    out = []
    for lst in lists.split(","):
        for base in (build, src):
            fname = os.path.join(base, reldir, lst)
            if os.path.isfile(fname) and os.path.getsize(fname) > 0:
                with open(fname, encoding="utf-8", errors="replace") as f:
                    out += [l.strip() for l in f if l.strip().startswith("!")]
                break
    return out


def first_reason(output):
    """The line that best says why a test failed."""
    text = [l for l in output if l.strip() and not l.startswith("Test output (expected")]
    for l in text:
        if TIMEOUT_MARK in l:
            return "hang: " + l.split(TIMEOUT_MARK, 1)[1].strip(" :")
    joined = "\n".join(text)
    if text and text[0].startswith("Failed to build"):
        for pat in (r"undefined reference to `([^']+)'", r"error: .*"):
            found = re.findall(pat, joined)
            if found:
                if pat.startswith("undefined"):
                    names = sorted(set(found))
                    return "build: undefined " + " ".join(names)
                return "build: " + found[0]
        return "build failed"
    for l in text:
        if "not implemented in Courier" in l:
            return l.strip()
    for l in text:
        if not re.match(r"^\s*(Found \d+ errors?|-{5,}|={5,})\s*$", l):
            return l.strip()
    return "no output (no \"No Errors\")"


def collect(results, reldirs):
    """Per directory: ordered dict key -> [status, reason, seconds], with the
    re-run's verdict applied (a failure that passes when re-run is "flaky").
    Build failures (runtests names them without np) get np from the list."""
    per_dir = {}
    for d in reldirs:
        tests = {}
        for name, status, output, secs in read_junit(os.path.join(results, d + ".junit.xml")):
            path, np, rest = parse_name(name)
            key = " ".join([path, np] + rest) if np else " ".join([path, "?"] + rest)
            n = 2
            base = key
            while key in tests:           # the same line listed twice
                key = "%s #%d" % (base, n)
                n += 1
            tests[key] = [status, first_reason(output) if status == "fail" else "", secs]
        for name, status, output, secs in read_junit(os.path.join(results, d + ".rerun.junit.xml")):
            path, np, rest = parse_name(name)
            key = " ".join([path, np] + rest)
            if key in tests and tests[key][0] == "fail" and status == "pass":
                tests[key][0] = "flaky"
        per_dir[d] = tests
    return per_dir


def summary(results, label, reldirs):
    per_dir = collect(results, reldirs)
    lines = []
    tot_p = tot_n = 0
    lines.append("%-10s %9s %6s %6s %6s  (%s)" % ("directory", "passed", "fail", "skip", "flaky", label))
    failing = []
    for d in reldirs:
        tests = per_dir[d]
        if not tests and not os.path.exists(os.path.join(results, d + ".junit.xml")):
            lines.append("%-10s %9s" % (d, "absent"))
            continue
        ran = [t for t in tests.values() if t[0] != "skip"]
        ok = sum(1 for t in ran if t[0] in ("pass", "flaky"))
        skip = sum(1 for t in tests.values() if t[0] == "skip")
        flaky = sum(1 for t in ran if t[0] == "flaky")
        tot_p += ok
        tot_n += len(ran)
        lines.append("%-10s %9s %6d %6d %6d" % (d, "%d/%d" % (ok, len(ran)), len(ran) - ok, skip, flaky))
        failing += ["%s\t%s" % (k, v[1]) for k, v in tests.items() if v[0] == "fail"]
        failing += ["%s\t(flaky: failed once, passed when re-run)" % k for k, v in tests.items() if v[0] == "flaky"]
    lines.append("%-10s %9s" % ("total", "%d/%d" % (tot_p, tot_n)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(results, "summary.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(results, "failures.txt"), "w") as f:
        f.write("\n".join(failing) + ("\n" if failing else ""))
    sys.stdout.write(text)
    if failing:
        sys.stdout.write("\nfailing tests (test, then the first line that says why):\n")
        for l in failing:
            sys.stdout.write("  " + l.replace("\t", "\n      ") + "\n")


def rerun_lists(results, build, src, lists, reldirs):
    """Write testlist.rerun in every directory that has failures (the list
    lines of the failed tests) and print those directories."""
    per_dir = collect(results, reldirs)
    wanted = {}
    for d in reldirs:
        for key, (status, reason, _) in per_dir[d].items():
            if status != "fail" or reason.startswith("build"):
                continue
            path = key.split()[0]
            wanted.setdefault(os.path.dirname(path), set()).add(re.sub(r" #\d+$", "", key))
    dirs = []
    for sub, keys in sorted(wanted.items()):
        out = setup_lines(build, src, sub, lists)
        for prog, np, args, env, line in list_entries(build, src, sub, lists):
            if test_key(os.path.join(sub, prog), np, args, env) in keys:
                out.append(line)
        if len(out) > len(setup_lines(build, src, sub, lists)):
            with open(os.path.join(build, sub, "testlist.rerun"), "w") as f:
                f.write("\n".join(out) + "\n")
            dirs.append(sub)
    print(",".join(dirs))


def compare(ref, other, reldirs):
    """Tests that pass in REF (e.g. MPICH) and fail in OTHER (e.g. Courier)."""
    a = collect(ref, reldirs)
    b = collect(other, reldirs)
    for d in reldirs:
        for key, (status, _, _) in a[d].items():
            if status not in ("pass", "flaky") or not b[d]:
                continue
            words = key.split()
            unbuilt = " ".join([words[0], "?"] + words[2:])   # build failures have no np
            got = b[d].get(key) or b[d].get(unbuilt)
            if got is None:
                print("%s\t(not run)" % key)
            elif got[0] == "fail":
                print("%s\t%s" % (key, got[1]))


def main(argv):
    if len(argv) >= 4 and argv[1] == "summary":
        summary(argv[2], argv[3], argv[4:])
    elif len(argv) >= 6 and argv[1] == "rerun-lists":
        rerun_lists(argv[2], argv[3], argv[4], argv[5], argv[6:])
    elif len(argv) >= 4 and argv[1] == "compare":
        compare(argv[2], argv[3], argv[4:])
    else:
        sys.stderr.write("usage: %s summary|rerun-lists|compare ... (see the top of this file)\n" % argv[0])
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
