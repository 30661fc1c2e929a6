#!/usr/bin/python3
"""Checks `nnfx codegen` on control flow (tests/codegen/ctrl_cases.py): an
If whose condition is computed from the input, Loops with a constant trip
count (loop-carried values, scan outputs, a swap of carried values, an If
inside a Loop, a Loop inside a Loop, the trip number read by the body),
Loops whose trip count (ArgMax, a Cast to int64) or initial condition is
computed at run time, with no trip count (a while loop), or whose body
stops them early, Scan in both directions, an If branch reading an outer
int64 constant. The generated C compiles with `cc -std=c99 -Wall -Wextra
-Werror -pedantic`, gives numpy's outputs on every sample (both branch
outcomes, different trip counts) within 1e-4 of the output's scale, and so
does `nnfx run` on the same models; generation is deterministic; --forbid
sees ops inside branches; a Loop with scan outputs whose trip count is
known only at run time, and an If whose branches differ in shape, exit 3
naming node and op, with nothing written.

ONNX's own backend node test of Scan (test_scan9_sum, generated into the
build tree by the onnx_node_tests fixture) goes through the generated C
too, against ONNX's expected outputs.

Usage: check_codegen_ctrl.py NNFX SOURCE_DIR WORK_DIR [NODE_TESTS_DIR]
"""
import os
import shutil
import sys

try:
    import numpy as np
    import onnx
except ImportError:
    print("skip: numpy and onnx are needed for %s" % sys.executable)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_codegen as cg  # noqa: E402  (the harness, compile flags and comparison)
import ctrl_cases  # noqa: E402

NNFX, WORK = cg.NNFX, cg.WORK


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    for name, model, xs, refs in ctrl_cases.cases():
        path = os.path.join(WORK, name + ".onnx")
        onnx.save(model, path)
        out = os.path.join(WORK, name)
        r = cg.generate(path, out, name)
        if r.returncode:
            cg.fail("%s: codegen exited %d: %s" % (name, r.returncode, r.stdout))
            continue
        inputs = xs if isinstance(xs, list) else [xs]  # one array of samples per model input
        nsamples = len(inputs[0])
        got = cg.build_and_run(out, name, inputs, nsamples)
        if got is not None:
            for k in range(nsamples):
                cg.compare("%s [%d]" % (name, k), got[k], refs[k])
        # nnfx's runtime (the interpreter runs the bodies) on the same samples
        for k in range(nsamples):
            binds = []
            for i, vi in enumerate(model.graph.input):
                xf = os.path.join(out, "x%d_%d.npy" % (k, i))
                np.save(xf, inputs[i][k])
                binds += ["--input", "%s=%s" % (vi.name, xf)]
            rd = os.path.join(out, "runtime%d" % k)
            r = cg.run([NNFX, "run", path] + binds + ["--output-dir", rd, "-q"])
            if r.returncode:
                cg.fail("%s: nnfx run exited %d: %s" % (name, r.returncode, r.stdout))
                continue
            cg.compare("%s [%d] (runtime)" % (name, k), np.concatenate(
                [np.load(os.path.join(rd, o.name + ".npy")).astype(np.float32).ravel() for o in model.graph.output]),
                refs[k])
    # ONNX's node tests: control flow (test_if: a bool model input) and int64 model outputs (ArgMax,
    # ArgMin: every axis, keepdims and select_last_index case); test_loop11's scan output has the length
    # of its trip count, a model input: refused
    node_dir = sys.argv[4] if len(sys.argv) > 4 else None
    node_tests = ["test_scan9_sum", "test_if"] + ["test_arg%s_%s_%s%s" % (f, a, kind, last)
                                                  for f in ("max", "min")
                                                  for a in ("default_axis", "keepdims", "negative_axis_keepdims",
                                                            "no_keepdims")
                                                  for kind in ("example", "random")
                                                  for last in ("", "_select_last_index")]
    for t in node_tests if node_dir else []:
        case = os.path.join(node_dir, "node", t)
        model = onnx.load(os.path.join(case, "model.onnx"))

        def tensors(kind, k):
            p = onnx.TensorProto()
            with open(os.path.join(case, "test_data_set_0", "%s_%d.pb" % (kind, k)), "rb") as f:
                p.ParseFromString(f.read())
            return onnx.numpy_helper.to_array(p)

        xs = [tensors("input", k) for k in range(len(model.graph.input))]
        ref = np.concatenate([tensors("output", k).ravel() for k in range(len(model.graph.output))])
        out = os.path.join(WORK, t)
        r = cg.generate(os.path.join(case, "model.onnx"), out, t)
        if r.returncode:
            cg.fail("%s: codegen exited %d: %s" % (t, r.returncode, r.stdout))
            continue
        got = cg.build_and_run(out, t, [x[None] for x in xs], 1)
        if got is not None:
            cg.compare(t + " (ONNX's)", got[0], ref)
    # determinism: the nested model twice, the same bytes
    path = os.path.join(WORK, "loop_if.onnx")
    again = os.path.join(WORK, "loop_if_again")
    cg.generate(path, again, "loop_if")
    for suffix in (".h", ".c", "_weights.c"):
        a = open(os.path.join(WORK, "loop_if", "loop_if" + suffix), "rb").read()
        b = open(os.path.join(again, "loop_if" + suffix), "rb").read()
        if a != b:
            cg.fail("loop_if%s differs between two runs" % suffix)
    print("determinism: two runs, same bytes")
    # --forbid sees the ops inside the branches too
    out = os.path.join(WORK, "err_forbid_in_branch")
    r = cg.generate(os.path.join(WORK, "if_select.onnx"), out, "if_select", extra=["--forbid", "Abs"])
    if r.returncode != 1 or "a2 (Abs)" not in r.stdout or os.path.exists(out):
        cg.fail("forbid_in_branch: want exit 1 naming a2 (Abs), nothing written; got %d: %s" % (r.returncode, r.stdout))
    else:
        print("%-20s exit 1: %s" % ("forbid_in_branch", r.stdout.strip().splitlines()[0]))
    if node_dir:
        out = os.path.join(WORK, "err_test_loop11")
        cg.expect_refused("test_loop11", cg.generate(os.path.join(node_dir, "node", "test_loop11", "model.onnx"), out,
                                                     "test_loop11"), out, ["(loop)", "known only at run time"],
                          width=20)
    for name, model, words in ctrl_cases.refused():
        path = os.path.join(WORK, name + ".onnx")
        onnx.save(model, path)
        out = os.path.join(WORK, "err_" + name)
        cg.expect_refused(name, cg.generate(path, out, name), out, words, width=20)
    if cg.failures:
        print("%d failure(s)" % len(cg.failures))
        sys.exit(1)
    print("all control-flow codegen checks passed")


if __name__ == "__main__":
    main()
