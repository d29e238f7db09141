#!/usr/bin/env bash
# One shard of a tpusim sweep as one task of a Slurm job array. Submit it from the repository (or anywhere,
# with TPUSIM naming the binary):
#
#   sbatch --array=1-N workloads/cluster/slurm_sweep.sh SWEEP OUTDIR
#
# SWEEP is a sweep file, or the name of a shipped sweep (tpusim sweep --list). Task K of the array runs
#
#   tpusim sweep SWEEP --shard K/N --output OUTDIR/shard-K
#
# with K = SLURM_ARRAY_TASK_ID and N = SLURM_ARRAY_TASK_COUNT (so the array must be numbered 1..N), as many
# points at once as Slurm gave the task CPUs (sbatch --cpus-per-task=C for C at once). A task that is run
# again (requeued, or the array resubmitted after a failure) runs only the points its folder has no record
# of. When every task has finished, join the shards:
#
#   tpusim sweep merge OUTDIR/merged OUTDIR/shard-*
#
# which fails, writing nothing, if a point is missing (a task that did not finish) and names its shard.
#SBATCH --job-name=tpusim-sweep
set -euo pipefail

if (($# != 2)); then
  echo "usage: sbatch --array=1-N $0 SWEEP OUTDIR" >&2
  exit 2
fi
sweep=$1
outdir=$2
k=${SLURM_ARRAY_TASK_ID:?"not a task of a job array: submit with sbatch --array=1-N"}
n=${SLURM_ARRAY_TASK_COUNT:?"not a task of a job array: submit with sbatch --array=1-N"}

# The binary: $TPUSIM, else tpusim on the PATH, else the build of the repository sbatch was run from.
tpusim=${TPUSIM:-}
if [[ -z $tpusim ]]; then
  if command -v tpusim > /dev/null; then
    tpusim=tpusim
  else
    tpusim=${SLURM_SUBMIT_DIR:-.}/build/workloads/tpusim
  fi
fi

if [[ -f $sweep ]]; then
  what=("$sweep")
else
  what=(--preset "$sweep")
fi
cpus=${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-}}
jobs=()
[[ -n $cpus ]] && jobs=(-j "$cpus")

mkdir -p "$outdir"
echo "tpusim sweep ${what[*]} --shard $k/$n --output $outdir/shard-$k on $(hostname)"
exec "$tpusim" sweep "${what[@]}" --shard "$k/$n" --output "$outdir/shard-$k" "${jobs[@]}" --progress plain
