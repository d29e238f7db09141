#!/usr/bin/env bash
# .ci/slurm-test's arguments, checked through its --dry-run (the test itself needs root and Slurm): a sweep
# file, named from another folder, is run by its absolute path in the array and in the local comparison; a
# preset name goes to --preset; a missing file, a bad sweep and a bad shard count stop it with status 2
# before anything is installed.
#   tests/ci/slurm_test_args.sh TPUSIM REPO
set -euo pipefail
tpusim=$1
repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export TPUSIM=$tpusim
fail() { echo "FAILED: $*" >&2; exit 1; }
expect() {  # expect TEXT PHRASE: TEXT holds PHRASE
  grep -qF -- "$2" <<< "$1" || fail "expected '$2' in: $1"
}

mkdir sweeps
cp "$repo/workloads/examples/configs/collective-sweep.yaml" sweeps/mine.yaml
file=$(realpath sweeps/mine.yaml)
out=$("$repo/.ci/slurm-test" --dry-run sweeps/mine.yaml 4)
echo "$out"
expect "$out" "12 collective points of $file"  # 2 algorithms x 3 sizes x 2 topologies
expect "$out" "sbatch --array=1-4 workloads/cluster/slurm_sweep.sh $file OUTDIR"
expect "$out" "local:  tpusim sweep $file --output OUTDIR/local"
if grep -q -- --preset <<< "$out"; then fail "a sweep file was passed as --preset"; fi

out=$("$repo/.ci/slurm-test" --dry-run lm-s2-layout)
echo "$out"
expect "$out" "sbatch --array=1-3 workloads/cluster/slurm_sweep.sh lm-s2-layout OUTDIR"
expect "$out" "local:  tpusim sweep --preset lm-s2-layout --output OUTDIR/local"

printf 'name: bad\nbase: tiny-mlp\nvary:\n  hardware.topology: [torus:2x2,cores=2, tpu-v2-32]\n' > bad.yaml
for args in "missing.yaml|no sweep file missing.yaml" "sweeps/none.yaml|no sweep file sweeps/none.yaml" \
  "bad.yaml|bad.yaml:4: vary.hardware.topology[1]: 'cores=2'" "no-such-sweep|unknown sweep preset 'no-such-sweep'" \
  "sweeps/mine.yaml 0|SHARDS must be a whole number from 1, not '0'"; do
  read -ra words <<< "${args%%|*}"
  status=0
  "$repo/.ci/slurm-test" --dry-run "${words[@]}" > out.txt 2> err.txt || status=$?
  [[ $status -eq 2 ]] || fail "${args%%|*}: status $status, expected 2: $(cat err.txt)"
  [[ ! -s out.txt ]] || fail "${args%%|*}: printed $(cat out.txt)"
  expect "$(cat err.txt)" "${args#*|}"
done
bash -n "$repo/.ci/slurm-test"
echo "slurm-test arguments: ok"
