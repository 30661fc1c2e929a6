#!/usr/bin/env bash
# The seed pipeline as one script: analyze -> optimize (numeric validation and
# an accuracy gate) -> export -> gate on the findings left -> report -> push
# to a model registry (when one is given). Made for CI: every step's exit status
# is checked, the first failing step stops the pipeline with nnfx's own exit
# status (1: a check failed, 2: usage, 3: bad input), and nothing is published
# unless every check passed. See docs/pipeline.md.
#
# usage: examples/pipeline.sh [MODEL.onnx] [options]
#
#   MODEL              default: the digits CNN of tests/data/digits, with its
#                      450 labelled test images as --data and --labels
#   -o, --out DIR      where everything goes (default: pipeline_out)
#   --data FILE.npy    inputs for validation and the accuracy gate (a batch
#                      along the first dim); without it, --random N inputs
#   --labels FILE.npy  class labels for --data: turns the accuracy gate on
#   --max-accuracy-drop PCT
#                      the gate: largest allowed top-1 drop (default 0.5 points;
#                      --max-drop is the same)
#   --fail-on KINDS    fail (exit 1, nothing published) when findings of these
#                      kinds remain after optimisation (default:
#                      foldable_batch_norm,unfoldable_batch_norm,dead_node,noop; 'none' turns it off)
#   --push REF         push the published model to an OCI registry, e.g.
#                      ghcr.io/team/model:v1 (login: ~/.docker/config.json)
#   --plain-http       talk HTTP to the registry (a local test registry only)
#   --random N         seeded random inputs when there is no --data (default 8)
#   --pass NAME[,NAME] passes to run besides those the findings call for
#   --rewrite RULE     a rewrite to apply, e.g. 'relu(x) -> leaky_relu(x, alpha=0.1)'
#   --nnfx PATH        the nnfx binary (default: $NNFX, else nnfx on PATH,
#                      else build/nnfx of this checkout)
#
# Writes into DIR:
#   analysis.json, analysis.html   the model as given: cost, findings (step 1)
#   optimize.json                  passes, op counts, validation, accuracy (step 2)
#   optimized.onnx                 the optimised model (only if every check passed)
#   model.onnx                     the published model (step 3), checked again
#                                  against the original
#   analysis.after.json            the published model's cost and findings
#   report.json                    all of the above in one file (step 4)
#   report.html                    before/after page: verdict, figures, accuracy
#
# examples:
#   examples/pipeline.sh
#   examples/pipeline.sh resnet18.onnx --random 4 -o out/resnet18
#   examples/pipeline.sh cnn.onnx --data x.npy --labels y.npy --max-accuracy-drop 1
#   examples/pipeline.sh cnn.onnx --random 4 --push registry.example.org/ml/cnn:v7
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
digits=$root/tests/data/digits

model= out=pipeline_out data= labels= max_drop=0.5 random_n=8 nnfx=${NNFX:-}
fail_on=foldable_batch_norm,unfoldable_batch_norm,dead_node,noop push_ref= plain_http=
extra=()
usage() { sed -n '9,30p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "pipeline: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    -o | --out) out=${2:?}; shift 2 ;;
    --data) data=${2:?}; shift 2 ;;
    --labels) labels=${2:?}; shift 2 ;;
    --max-drop | --max-accuracy-drop) max_drop=${2:?}; shift 2 ;;
    --fail-on) fail_on=${2:?}; shift 2 ;;
    --push) push_ref=${2:?}; shift 2 ;;
    --plain-http) plain_http=--plain-http; shift ;;
    --random) random_n=${2:?}; shift 2 ;;
    --pass) for p in ${2//,/ }; do extra+=(--pass "$p"); done; shift 2 ;;
    --rewrite) extra+=(--rewrite "${2:?}"); shift 2 ;;
    --nnfx) nnfx=${2:?}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) [ -z "$model" ] || die "one model at a time (got '$model' and '$1')"; model=$1; shift ;;
    esac
done
if [ -z "$model" ]; then
    model=$digits/digits_cnn.onnx
    [ -n "$data" ] || data=$digits/digits_test_x.npy
    [ -n "$labels" ] || labels=$digits/digits_test_y.npy
fi
if [ -z "$nnfx" ]; then
    nnfx=$(command -v nnfx || echo "$root/build/nnfx")
fi
[ -x "$nnfx" ] || die "no nnfx binary at '$nnfx' (build it, or give --nnfx PATH)"
[ -z "$labels" ] || [ -n "$data" ] || die "--labels needs --data (the labelled inputs)"
mkdir -p "$out" || exit 3
# a failed run must not leave an earlier run's results looking current
rm -f "$out"/{analysis.json,analysis.html,optimize.json,optimized.onnx,model.onnx,analysis.after.json,report.json,report.html}

# step N NAME COMMAND...: runs one step; stops the pipeline when it fails.
step() {
    local n=$1 name=$2
    shift 2
    echo "== step $n: $name"
    "$@"
    local rc=$?
    if [ $rc -ne 0 ]; then
        echo "pipeline: step $n ($name) failed with exit status $rc; nothing published" >&2
        exit $rc
    fi
}

# 1. Analyse: cost, and findings such as foldable BatchNorm and dead branches.
step 1 analyze "$nnfx" analyze "$model" --json "$out/analysis.json" --html "$out/analysis.html"

# The findings choose the passes (their kinds are listed in analysis.json).
passes=()
finds() { grep -q "\"kind\": \"$1\"" "$out/analysis.json"; }
finds foldable_batch_norm && passes+=(--pass fuse-conv-bn)
finds noop && passes+=(--pass remove-identity)
finds constant_subgraph && passes+=(--pass fold-constants)
if finds dead_node || finds unused_initializer || finds unused_input; then passes+=(--pass dce); fi
echo "   passes from the findings: ${passes[*]:-(none)}"

# 2. Optimise, validate numerically, and gate on accuracy when labels exist.
checks=(--validate)
if [ -n "$data" ]; then checks+=(--input "$data"); else checks+=(--random "$random_n"); fi
[ -z "$labels" ] || checks+=(--labels "$labels" --max-accuracy-drop "$max_drop")
step 2 optimize "$nnfx" optimize "$model" -o "$out/optimized.onnx" "${passes[@]}" "${extra[@]}" \
    "${checks[@]}" --report "$out/optimize.json"

# 3. Export the deliverable (lint and shape inference once more), and check
#    that the file to publish still answers as the original model does.
step 3 export "$nnfx" export "$out/optimized.onnx" -o "$out/model.onnx"
if [ -n "$data" ]; then same=(--input "$data"); else same=(--random "$random_n"); fi
step 3 "compare published with original" "$nnfx" compare "$model" "$out/model.onnx" "${same[@]}"

# 4. Report: the published model's cost, and one JSON with every step's output.
#    It is also the gate on what optimisation left: findings of the --fail-on
#    kinds (a BatchNorm that could not be folded, a dead branch) fail the run.
gate=()
[ "$fail_on" = none ] || gate=(--fail-on "$fail_on")
"$nnfx" analyze "$out/model.onnx" --json "$out/analysis.after.json" --quiet "${gate[@]}"
rc=$?
echo "== step 4: analyze published${gate[*]:+ (gate: ${gate[1]})}"
if [ $rc -ne 0 ]; then
    rm -f "$out/model.onnx"
    echo "pipeline: step 4 (analyze published) failed with exit status $rc; nothing published" >&2
    exit $rc
fi
jstr() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
{
    printf '{\n"model": %s,\n"published": %s,\n' "$(jstr "$model")" "$(jstr "$out/model.onnx")"
    printf '"analysis_before": '; cat "$out/analysis.json"
    printf ',\n"optimize": '; cat "$out/optimize.json"
    printf ',\n"analysis_after": '; cat "$out/analysis.after.json"
    printf '}\n'
} >"$out/report.json.tmp" && mv "$out/report.json.tmp" "$out/report.json" || exit 3

# the before/after page: verdict, figures side by side, accuracy of both
ba=()
[ -z "$labels" ] || ba=(--input "$data" --labels "$labels")
"$nnfx" analyze "$model" --compare "$out/model.onnx" "${ba[@]}" --html "$out/report.html" --quiet ||
    { echo "pipeline: the before/after report failed" >&2; exit 3; }

# top-level "key": value of a report written by nnfx (one key a line)
num() { sed -n "s/^  \"$1\": \([0-9.e+-]*\),\{0,1\}$/\1/p" "$2" | head -1; }
nfind() { grep -c '"kind": ' "$1"; }
echo "== report: $out/report.json, $out/report.html (before/after)"
echo "   nodes     $(num nodes "$out/analysis.json") -> $(num nodes "$out/analysis.after.json")"
echo "   params    $(num params "$out/analysis.json") -> $(num params "$out/analysis.after.json")"
echo "   MACs      $(num macs "$out/analysis.json") -> $(num macs "$out/analysis.after.json")"
echo "   findings  $(nfind "$out/analysis.json") -> $(nfind "$out/analysis.after.json")"
if [ -n "$labels" ]; then
    sed -n 's/.*"accuracy": {[^}]*"top1_before": \([0-9.]*\), "top1_after": \([0-9.]*\), "drop_points": \([0-9.e-]*\).*/   top-1     \1 % -> \2 % (drop \3 points, allowed '"$max_drop"')/p' \
        "$out/optimize.json"
fi
echo "   published $out/model.onnx"

# 5. Push to a model registry (only when one is given): the model as an OCI
#    artifact whose config carries the provenance and this analysis.
if [ -n "$push_ref" ]; then
    step 5 push "$nnfx" push "$out/model.onnx" "$push_ref" $plain_http \
        --annotation org.opencontainers.image.description="nnfx pipeline: $(basename "$model")"
fi
