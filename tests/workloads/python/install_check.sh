#!/bin/sh
# install_check.sh BUILD PYTHON SITE_DIR: installs BUILD into a fresh prefix and imports tpusim from there
# only (not from the build tree, nor from the source), then runs one collective through it.
set -eu
build=$1 python=$2 site=$3
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/tpusim"
cd "$prefix"
PYTHONPATH="$prefix/$site" "$python" -c '
import sys, tpusim
assert tpusim.__file__.startswith(sys.argv[1]), tpusim.__file__
row = tpusim.collective(bytes="1MiB", topology="ring:4", algorithm="ring").iloc[0]
assert row["group_size"] == 4, row
print("installed", tpusim.__version__, "at", tpusim.__file__)
' "$prefix"
