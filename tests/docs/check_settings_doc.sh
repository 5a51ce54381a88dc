#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/settings.md must hold what `courier_info --settings-md` prints: the
# settings table (src/util/settings_table.h) is the one source of truth.
# Usage: check_settings_doc.sh <courier_info> <docs/settings.md>
set -e
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$1" --settings-md > "$tmp"
# The doc is a short preamble followed by the generated table.
if ! sed -n '/^| Variable |/,$p' "$2" | cmp -s - "$tmp"; then
    echo "docs/settings.md is stale; regenerate with: make settings-doc" >&2
    sed -n '/^| Variable |/,$p' "$2" | diff - "$tmp" >&2 || true
    exit 1
fi
echo "docs/settings.md matches courier_info --settings-md"
