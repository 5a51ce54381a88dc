#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate one man page per MPI procedure from the MPI standard's API description.

Requires `pip install pympistandard==0.2.0` (the same description as
maint/gen_bindings.py).  Usage:
    python3 maint/gen_man.py [OUTDIR]   write OUTDIR/man3/MPI_*.3 (default: man/)
    python3 maint/gen_man.py --check    exit 1 if man/man3 differs from what it would write

Each page has the C synopsis (and the large-count _c form), the Fortran
synopses (`use mpi_f08`, and `use mpi` / mpif.h), the arguments with their
descriptions and directions from the standard, the error classes that
Courier's generated argument checks raise for them, and our own notes
(maint/man_notes.py).  A _c form gets a page that includes its base page.
Procedures that Courier does not declare (notes.NOT_IN_ABI) get no page.  The
pages are committed (man/man3) so that building and installing Courier needs
no Python; `make man` regenerates them and the `man.current` test checks them.
"""
import os
import re
import sys

import pympistandard as std

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import man_notes  # noqa: E402
import notes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STANDARD = "MPI 4.1"
DATE = "2025"  # changes only with the standard's description: keeps the pages reproducible

# The checks maint/gen_bindings.py generates for an argument (its kind in the
# standard, its C type and name) and the error class each raises
# (src/core/check.c).  Kept in step with gen_bindings.checks() by hand: the
# pages must not promise a check the entry point does not make.
COUNT_KINDS = {"POLYXFER_NUM_ELEM_NNI", "XFER_NUM_ELEM_NNI", "POLYDTYPE_NUM_ELEM_NNI", "ARRAY_LENGTH_NNI"}
HANDLE_CHECKS = {"OPERATION": ("MPI_Op", "MPI_ERR_OP", "operation"),
                 "REQUEST": ("MPI_Request", "MPI_ERR_REQUEST", "request"),
                 "GROUP": ("MPI_Group", "MPI_ERR_GROUP", "group"),
                 "INFO": ("MPI_Info", "MPI_ERR_INFO", "info object"),
                 "ERRHANDLER": ("MPI_Errhandler", "MPI_ERR_ERRHANDLER", "error handler")}
DIRECTIONS = [("in", "INPUT ARGUMENTS"), ("inout", "INPUT/OUTPUT ARGUMENTS"), ("out", "OUTPUT ARGUMENTS")]


def roff(text):
    """Escape text for roff: backslashes, and a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def latex_to_text(s):
    """The standard's descriptions hold a little LaTeX: make it plain text."""
    s = re.sub(r"\\(?:mpiarg|mpicode|mpifunc|const|mpiskipfunc|texttt|emph|code)\{([^}]*)\}", r"\1", s)
    s = s.replace("\\_", "_").replace("~", " ").replace("``", '"').replace("''", '"')
    s = re.sub(r"\$([^$]*)\$", r"\1", s)
    s = re.sub(r"\\[a-zA-Z]+\{([^}]*)\}", r"\1", s)
    return re.sub(r"\s+", " ", s).strip()


def errors_of(name, params):
    """Error classes the generated checks raise for this procedure's arguments."""
    found = {}
    names = {p["name"]: p for p in params}
    comm = names.get("comm") if (names.get("comm") or {}).get("kind") == "COMMUNICATOR" else None
    comm = comm or next((p for p in params if p.get("kind") == "COMMUNICATOR" and p.get("param_direction") == "in"), None)
    if comm:
        found["MPI_ERR_COMM"] = "%s is MPI_COMM_NULL or not a communicator" % comm["name"]
    for p in params:
        kind, pname, scalar_in = p.get("kind") or "", p["name"], p.get("param_direction") == "in" and not p.get("length")
        if kind == "RANK" and pname == "root" and comm:
            found.setdefault("MPI_ERR_ROOT", "root is not a rank of the communicator")
        elif kind in COUNT_KINDS and scalar_in:
            found.setdefault("MPI_ERR_COUNT", "%s is negative" % pname)
        elif kind == "DATATYPE" and scalar_in:
            found.setdefault("MPI_ERR_TYPE", "%s is MPI_DATATYPE_NULL, not a datatype, or not committed" % pname)
        elif kind == "BUFFER" and pname.endswith("buf"):
            found.setdefault("MPI_ERR_BUFFER", "%s is NULL while its count is not 0" % pname)
        elif kind == "RANK" and comm and pname in ("dest", "source") and scalar_in:
            found.setdefault("MPI_ERR_RANK", "%s is not a rank of the communicator (nor MPI_PROC_NULL%s)"
                             % (pname, ", MPI_ANY_SOURCE" if pname == "source" else ""))
        elif kind == "TAG" and scalar_in:
            found.setdefault("MPI_ERR_TAG", "%s is negative or above MPI_TAG_UB" % pname)
        elif kind in HANDLE_CHECKS:
            found.setdefault(HANDLE_CHECKS[kind][1], "%s is not a valid %s" % (pname, HANDLE_CHECKS[kind][2]))
    if any(p.get("param_direction") == "out" and p.get("kind") not in ("STATUS", "ERROR_CODE", "BUFFER")
           for p in params):
        found.setdefault("MPI_ERR_ARG", "an output argument is a NULL pointer")
    found["MPI_ERR_OTHER"] = ("called before MPI_Init or after MPI_Finalize, or %s is not implemented "
                              "in this Courier build (courier_info --api)" % name)
    return found


def see_also(name, all_names):
    """Related procedures: the non-blocking, persistent and large-count forms."""
    base = name[4:]
    cands = ["MPI_I" + base[0].lower() + base[1:], "MPI_" + base + "_init"]
    if base.startswith("I") and base[1:2].islower():
        cands.append("MPI_" + base[1].upper() + base[2:])
    cands += man_notes.SEE_ALSO.get(name, [])
    return [c for c in dict.fromkeys(cands) if c in all_names and c != name]


def has_c_big(proc):
    """Whether the procedure has a large-count C form (pympistandard's
    has_embiggenment is a method: the bound method itself is always true)."""
    return proc.has_embiggenment()


def page(proc, all_names):
    e = proc.express
    name = proc._parseset["name"]
    params = (proc._parseset or {}).get("parameters", [])
    summary = man_notes.SUMMARY.get(name, "an MPI procedure (see the MPI standard)")
    out = []
    w = out.append
    w('.\\" SPDX-License-Identifier: MIT')
    w('.\\" Generated by maint/gen_man.py from the MPI standard (pympistandard); do not edit.')
    w('.TH %s 3 "%s" "Courier" "Courier MPI"' % (name, DATE))
    w(".SH NAME")
    names = name + (", %s_c" % name if has_c_big(proc) else "")
    w("%s \\- %s" % (roff(names), roff(summary)))
    w(".SH SYNOPSIS")
    w(".SS C")
    w(".nf")
    w("#include <mpi.h>")
    w("")
    w(roff(str(e.iso_c)) + ";")
    if has_c_big(proc):
        w(roff(str(e.embiggen.iso_c)) + ";")
    w(".fi")
    if proc._parseset.get("attributes", {}).get("f08_expressible", True):
        w(".SS Fortran 2008 (use mpi_f08)")
        w(".nf")
        w(roff(str(e.f08)))
        w(".fi")
    if proc._parseset.get("attributes", {}).get("f90_expressible", True):
        w(".SS Fortran (use mpi, include 'mpif.h')")
        w(".nf")
        w(roff(str(e.f90)))
        w(".fi")
    for direction, title in DIRECTIONS:
        ps = [p for p in params if p.get("param_direction") == direction and p.get("name") != "ierror"
              and not p.get("large_only")]
        if not ps:
            continue
        w(".SH " + title)
        for p in ps:
            w(".TP")
            w(".B " + roff(p["name"]))
            desc = latex_to_text(p.get("desc") or "") or "(no description in the standard)"
            if p.get("root_only"):
                desc += " (significant only at root)"
            w(roff(desc))
    if proc._parseset.get("return_kind", "ERROR_CODE") not in ("ERROR_CODE", "ERROR_CLASS"):
        # MPI_Wtime, MPI_Comm_toint, ...: the C function returns a value
        w(".SH ERRORS")
        w("The C function returns its result, not an error code, and checks nothing:")
        w("an invalid argument is erroneous (the MPI standard).")
    else:
        error_section(w, name, params)
    note = man_notes.NOTES.get(name)
    if note:
        w(".SH NOTES")
        w(roff(note))
    w(".SH COURIER")
    w("Courier implements the MPICH ABI (libmpi.so.12).  `courier_info --api` lists which")
    w("procedures this build implements; the others return MPI_ERR_OTHER saying so.")
    w("Compile with mpicc(1), mpicxx or mpifort, run with mpiexec(1).")
    also = see_also(name, all_names)
    w(".SH SEE ALSO")
    w(roff(", ".join(["%s(3)" % a for a in also] + ["mpicc(1)", "mpiexec(1)"])))
    w("")
    w("The MPI standard, %s: https://www.mpi-forum.org/docs/" % STANDARD)
    return "\n".join(out) + "\n"


def error_section(w, name, params):
    w(".SH ERRORS")
    w("The C function returns an error code (MPI_SUCCESS, 0, when it succeeds); the Fortran")
    w("forms return it in \\fIierror\\fP.  By default errors are fatal (MPI_ERRORS_ARE_FATAL):")
    w("Courier prints one line naming the rank, the call, the error class and the faulty")
    w("argument with its value, and ends the job.  With MPI_ERRORS_RETURN set on the")
    w("communicator (window, file) the call returns the code instead.  Classes this call")
    w("raises for bad arguments:")
    for cls, why in errors_of(name, params).items():
        w(".TP")
        w(".B " + roff(cls))
        w(roff(why))


def generate():
    """Return {relative path: content} of every page."""
    std.use_api_version(1)
    procs = []
    for key in sorted(std.PROCEDURES):
        p = std.PROCEDURES[key]
        name = p._parseset["name"]
        if name in notes.NOT_IN_ABI or not p._parseset.get("attributes", {}).get("c_expressible", True):
            continue
        procs.append((name, p))
    all_names = {name for name, _ in procs}
    files = {}
    for name, p in procs:
        files["man3/%s.3" % name] = page(p, all_names)
        if has_c_big(p):
            files["man3/%s_c.3" % name] = ".so man3/%s.3\n" % name
    return files


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    outdir = args[0] if args else os.path.join(ROOT, "man")
    files = generate()
    if check:
        have = {os.path.join("man3", f) for f in os.listdir(os.path.join(outdir, "man3"))
                if f.startswith("MPI_")} if os.path.isdir(os.path.join(outdir, "man3")) else set()
        stale = sorted(f for f, text in files.items()
                       if not os.path.exists(os.path.join(outdir, f))
                       or open(os.path.join(outdir, f)).read() != text)
        extra = sorted(have - set(files))
        for f in stale:
            print("gen_man: %s is not what maint/gen_man.py writes" % f)
        for f in extra:
            print("gen_man: %s is not generated any more" % f)
        if stale or extra:
            print("gen_man: run `make man` and commit man/man3")
            return 1
        print("gen_man: %d pages current" % len(files))
        return 0
    os.makedirs(os.path.join(outdir, "man3"), exist_ok=True)
    for f in os.listdir(os.path.join(outdir, "man3")):
        if f.startswith("MPI_") and os.path.join("man3", f) not in files:
            os.remove(os.path.join(outdir, "man3", f))
    for f, text in files.items():
        with open(os.path.join(outdir, f), "w") as fh:
            fh.write(text)
    print("gen_man: wrote %d pages into %s" % (len(files), os.path.join(outdir, "man3")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
