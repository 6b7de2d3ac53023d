#!/usr/bin/env bash
# The cargo runner of the x86_64-pc-windows-gnu rows (`cargo xtask cross windows`): runs one test binary under
# wine. When wine itself failed, its client having lost the wineserver ("wine client error: ... Connection reset
# by peer", seen once in CI between two test binaries), it runs the binary once more; a failing test never
# prints that, so a test failure is never retried. The xtask keeps a persistent wineserver for the rows
# (`wineserver -p`), which removes the usual cause: a server shutting down as the next binary connects.
set -uo pipefail
err=$(mktemp)
trap 'rm -f "$err"' EXIT
wine "$@" 2>"$err"
rc=$?
cat "$err" >&2
if [ "$rc" -ne 0 ] && grep -q "wine client error" "$err"; then
    echo "run.sh: wine lost its server (exit $rc); starting it again and running the binary once more" >&2
    wineserver -p 2>/dev/null || true
    wine "$@"
    rc=$?
fi
exit "$rc"
