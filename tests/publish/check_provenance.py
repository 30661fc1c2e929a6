#!/usr/bin/python3
"""Reads a model nnfx wrote with python3-onnx and checks its provenance.

usage: check_provenance.py MODEL SOURCE [--steps JSON] [--validation] [--opset N] [--names-from SOURCE]
Checks: producer_name "nnfx" and a producer_version; metadata_props
nnfx.version, nnfx.build (16 hex digits), nnfx.source_sha256 (hashlib's SHA-256 of SOURCE), nnfx.steps
(JSON; equal to --steps when given), nnfx.validation (JSON with tolerances and
errors) when --validation; the default-domain opset; the node and value names
of SOURCE kept for every node whose op type and outputs survive; the full
onnx.checker check."""
import hashlib
import json
import re
import sys

import onnx

args = sys.argv[1:]
model, source = args[0], args[1]
opts = {}
i = 2
while i < len(args):
    if args[i] in ("--steps", "--opset", "--names-from"):
        opts[args[i]] = args[i + 1]
        i += 2
    else:
        opts[args[i]] = True
        i += 1

m = onnx.load(model)
onnx.checker.check_model(m, full_check=True)
fails = []
def want(cond, what):
    if not cond:
        fails.append(what)

want(m.producer_name == "nnfx", "producer_name is %r" % m.producer_name)
want(m.producer_version != "", "producer_version is empty")
meta = {p.key: p.value for p in m.metadata_props}
want(meta.get("nnfx.version") == m.producer_version, "nnfx.version %r" % meta.get("nnfx.version"))
want(re.fullmatch("[0-9a-f]{16}", meta.get("nnfx.build", "")) is not None, "nnfx.build %r" % meta.get("nnfx.build"))
sha = hashlib.sha256(open(source, "rb").read()).hexdigest()
want(meta.get("nnfx.source_sha256") == sha, "nnfx.source_sha256 %r != %s" % (meta.get("nnfx.source_sha256"), sha))
steps = json.loads(meta.get("nnfx.steps", "null"))
want(isinstance(steps, list), "nnfx.steps is not a JSON list: %r" % meta.get("nnfx.steps"))
if "--steps" in opts:
    want(steps == json.loads(opts["--steps"]), "nnfx.steps %r != %s" % (steps, opts["--steps"]))
if "--validation" in opts:
    v = json.loads(meta.get("nnfx.validation", "null"))
    want(isinstance(v, dict) and "atol" in v and "max_abs_error" in v and v.get("passed") is True,
         "nnfx.validation %r" % v)
else:
    want("nnfx.validation" not in meta, "nnfx.validation present without checks")
if "--opset" in opts:
    ops = [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")]
    want(ops == [int(opts["--opset"])], "opset %r != %s" % (ops, opts["--opset"]))
if "--names-from" in opts:
    src = onnx.load(opts["--names-from"], load_external_data=False)
    by_out = {tuple(n.output): n for n in src.graph.node}
    kept = 0
    for n in m.graph.node:
        s = by_out.get(tuple(n.output))
        if s is not None and s.op_type == n.op_type:
            want(n.name == s.name, "node %r was %r in the source" % (n.name, s.name))
            kept += 1
    want(kept > 0, "no node of the source kept its output names")
if fails:
    print("check_provenance: %s:\n  %s" % (model, "\n  ".join(fails)))
    sys.exit(1)
print("check_provenance: %s ok (%d metadata_props)" % (model, len(meta)))
