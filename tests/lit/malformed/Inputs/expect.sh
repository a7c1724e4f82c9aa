#!/bin/sh
# expect.sh STATUS OUTPUT COMMAND...: runs COMMAND, prints its standard error on
# standard output (for FileCheck), and fails unless it exited with STATUS and
# left neither OUTPUT nor a temporary file beside it ("-": no output to check).
# Whatever OUTPUT held before is replaced by a stale marker first: a failed run
# must remove it, as gcc and ld do.
status=$1 out=$2
shift 2
[ "$out" != - ] && echo stale >"$out"
"$@" 2>&1 >/dev/null
rc=$?
if [ "$rc" -ne "$status" ]; then
    echo "expect.sh: '$*' exited $rc, not $status" >&2
    exit 1
fi
if [ "$out" != - ]; then
    if [ -e "$out" ]; then
        echo "expect.sh: '$*' left $out behind" >&2
        exit 1
    fi
    for tmp in "$out".tmp*; do
        if [ -e "$tmp" ]; then
            echo "expect.sh: '$*' left the temporary $tmp behind" >&2
            exit 1
        fi
    done
fi
exit 0
