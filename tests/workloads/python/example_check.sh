#!/bin/sh
# example_check.sh PYTHON SCRIPT: runs the example script into a scratch folder; it must exit 0 and draw a
# non-empty PNG.
set -eu
python=$1 script=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$python" "$script" "$out/scaling.png"
test -s "$out/scaling.png"
head -c 8 "$out/scaling.png" | od -An -c | grep -q 'P   N   G'
