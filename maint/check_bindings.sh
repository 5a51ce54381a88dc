#!/bin/sh
# SPDX-License-Identifier: MIT
# Fails when the committed generated binding files differ from what
# maint/gen_bindings.py produces now, the Fortran bindings of maint/gen_fortran.py
# included (run `python3 maint/gen_bindings.py`).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
if ! python3 -c "import pympistandard" 2>/dev/null; then
    echo "check_bindings: pympistandard is not installed (pip install pympistandard==0.2.0)" >&2
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$root/maint/gen_bindings.py" "$tmp"
status=0
for f in $(cd "$tmp" && find . -type f | sort); do
    if ! cmp -s "$tmp/$f" "$root/$f"; then
        echo "check_bindings: $f is stale; run python3 maint/gen_bindings.py" >&2
        status=1
    fi
done
for f in $(cd "$root" && ls src/binding/bind_*.c src/fortran/fort_*.c 2>/dev/null | grep -v fort_util.c); do
    [ -f "$tmp/$f" ] || { echo "check_bindings: $f is no longer generated; remove it" >&2; status=1; }
done
[ $status = 0 ] && echo "check_bindings: generated files are up to date"
exit $status
