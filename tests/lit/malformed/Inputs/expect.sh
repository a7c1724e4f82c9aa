#!/bin/sh
# expect.sh STATUS OUTPUT COMMAND...: runs COMMAND, prints its standard error on
# standard output (for FileCheck), and fails unless it exited with STATUS and
# left OUTPUT as it found it, with no temporary file beside it ("-": no output to
# check). OUTPUT holds a stale marker first: a failed run never writes to it, and
# never removes a file it did not create.
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
    if [ "$(cat "$out" 2>/dev/null)" != stale ]; then
        echo "expect.sh: '$*' removed or changed $out" >&2
        exit 1
    fi
    rm -f "$out"
    for tmp in "$out".tmp*; do
        if [ -e "$tmp" ]; then
            echo "expect.sh: '$*' left the temporary $tmp behind" >&2
            exit 1
        fi
    done
fi
exit 0
