#!/usr/bin/env bash
# check_slurm_sketch.sh DOC CLI - the Slurm array script in docs/distributed.md, run as Slurm runs its
# elements (no Slurm here): every index of its --array, with SLURM_ARRAY_TASK_ID set, and
# SLURM_CPUS_PER_TASK from its --cpus-per-task, standard output to its --output file, one index
# resubmitted alone (an array of one: SLURM_ARRAY_TASK_COUNT=1), then the sum its comment gives, which
# must print the OEIS count. The script counts n = 20; here it counts 13, so that it runs in a second.
set -euo pipefail
doc=$1
cli=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The script is the sh block holding "count-20.sbatch".
awk '/^```sh$/ { block = 1; text = ""; next }
     block && /^```$/ { if (text ~ /count-20\.sbatch/) { printf "%s", text; exit } block = 0; next }
     block { text = text $0 "\n" }' "$doc" >"$tmp/count.sbatch"
[[ -s $tmp/count.sbatch ]] || { echo "$doc: no count-20.sbatch block" >&2; exit 1; }
sed -i 's/count 20 /count 13 /g' "$tmp/count.sbatch"
last=$(sed -n 's/^#SBATCH --array=0-\([0-9][0-9]*\)$/\1/p' "$tmp/count.sbatch")
output=$(sed -n 's/^#SBATCH --output=\(.*\)$/\1/p' "$tmp/count.sbatch")
cpus=$(sed -n 's/^#SBATCH --cpus-per-task=\([1-9][0-9]*\)$/\1/p' "$tmp/count.sbatch")
wrap=$(sed -n "s/.*--wrap '\\(.*\\)'\$/\\1/p" "$tmp/count.sbatch")
[[ -n $last && -n $cpus && $output == */%a.json && -n $wrap ]] ||
  { echo "count-20.sbatch: no --array=0-K, --cpus-per-task=C, --output=DIR/%a.json or --wrap '...'" >&2; exit 1; }

mkdir -p "$tmp/bin" "$tmp/${output%/*}"
ln -s "$(readlink -f "$cli")" "$tmp/bin/nqueens"
export PATH="$tmp/bin:$PATH"
cd "$tmp"
for i in $(seq 0 "$last"); do
  tasks=$((last + 1))
  ((i == 17)) && tasks=1 # resubmitted alone: `sbatch --array=17 count-20.sbatch`
  SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$tasks SLURM_CPUS_PER_TASK=$cpus \
    bash count.sbatch >"${output/\%a/$i}" 2>"${output/\%a/$i}.err" ||
    { echo "element $i failed: $(cat "${output/\%a/$i}.err")" >&2; exit 1; }
done
bash -c "$wrap"
result=$(cat count-20.json)
expected='{"n":13,"total":73712,"unique":9233}'
[[ $result == "$expected" ]] || { echo "the sum printed '$result', expected $expected" >&2; exit 1; }
echo "count-20.sbatch, $((last + 1)) elements at n = 13: $result"
