#!/usr/bin/env bash
# The fleet benchmark: COUNT generated models (tests/fleet/make_fleet.py:
# Conv-BN-ReLU chains, MLPs, residual blocks of varied sizes) through
# fuse-conv-bn + validation, as
#   1. one process, --jobs 2;
#   2. four local shards (--shard K/4), run at once;
#   3. a cold --cache run, then a re-run over the unchanged fleet;
#   4. torch.fx, one Python process per model (bench/fleet_torchfx_one.py:
#      trace, fuse, check, export), as the seeds' pipeline runs it.
# Prints models per minute for each. Not a test: figures depend on the machine.
# Usage: bench/run_fleet.sh [COUNT (default 200)] [NNFX (default build/nnfx)]
# (SKIP_TORCH=1: the nnfx rows only)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
COUNT=${1:-200}
NNFX=$(cd "$(dirname "${2:-$here/build/nnfx}")" && pwd)/$(basename "${2:-$here/build/nnfx}")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
/usr/bin/python3 "$here/tests/fleet/make_fleet.py" fleet "$COUNT"
STEPS=(--pass fuse-conv-bn --validate --random 2 -q)
now() { date +%s.%N; }
rate() { awk -v n="$COUNT" -v a="$1" -v b="$2" 'BEGIN { printf "%8.2f s  %8.0f models/min", b - a, n * 60 / (b - a) }'; }

t0=$(now); "$NNFX" optimize --batch fleet/list.txt -o one "${STEPS[@]}" --jobs 2; t1=$(now)
echo "nnfx, one process, --jobs 2         $(rate "$t0" "$t1")"
t0=$(now)
for k in 1 2 3 4; do "$NNFX" optimize --batch fleet/list.txt -o sharded "${STEPS[@]}" --shard $k/4 & done
wait
t1=$(now)
echo "nnfx, 4 local shards at once        $(rate "$t0" "$t1")"
t0=$(now); "$NNFX" optimize --batch fleet/list.txt -o cached "${STEPS[@]}" --jobs 2 --cache cache; t1=$(now)
echo "nnfx, --jobs 2, cold --cache        $(rate "$t0" "$t1")"
c0=$t0 c1=$t1
t0=$(now); "$NNFX" optimize --batch fleet/list.txt -o cached "${STEPS[@]}" --jobs 2 --cache cache --report re.json; t1=$(now)
echo "nnfx, re-run, every model cached    $(rate "$t0" "$t1")  ($(grep -o '"cache_hits": [0-9]*' re.json))"
awk -v a="$c0" -v b="$c1" -v c="$t0" -v d="$t1" 'BEGIN { printf "re-run / cold --cache run: %.1f %%\n", 100 * (d - c) / (b - a) }'
[ -z "${SKIP_TORCH:-}" ] || exit 0
mkdir -p torchfx
t0=$(now)
grep -v '^#' fleet/list.txt | while read -r m; do
    /usr/bin/python3 "$here/bench/fleet_torchfx_one.py" "$m" "torchfx/$(basename "$m")"
done
t1=$(now)
echo "torch.fx, one process per model     $(rate "$t0" "$t1")"
