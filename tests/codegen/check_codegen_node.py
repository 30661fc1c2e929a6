#!/usr/bin/python3
"""Runs `nnfx codegen` over every ONNX backend node test that nnfx itself
runs (the cases tests/node_tests/expected_failures.txt does not list as
refused): each one must either
  - generate C that compiles with `cc -std=c99 -Wall -Wextra -Werror
    -pedantic`, and whose outputs on the case's inputs match ONNX's expected
    outputs as the node-test runner checks nnfx's own (|got - want| <=
    1e-5 + 1e-3 |want|, NaN where ONNX has NaN, integers and bools exact), or
  - be listed in tests/codegen/node_refused.txt with the words its refusal
    gives, and be refused that way: exit 3, the node named, nothing written.
A refusal that asks for `--value INPUT=...` (an output size that depends on
the value of a model input: a Reshape's shape, TopK's K, Resize's scales...)
is retried with the case's own values for those inputs; the generated run
must then also refuse other values of the first non-empty one (m_run
returns 1).
A listed case that generates fails the test too (the list stays exact), as
does a refusal whose message lacks the listed words.

Usage: check_codegen_node.py NNFX SOURCE_DIR WORK_DIR NODE_TESTS_DIR [CASE ...]
Exit: 0 all as above, 1 a failure, 77 (skip) without numpy/onnx or the cases.
"""
import concurrent.futures
import os
import shutil
import sys

try:
    import numpy as np
    import onnx
    import onnx.numpy_helper
except ImportError:
    print("skip: numpy and onnx are needed for %s" % sys.executable)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_codegen as cg  # noqa: E402  (compile flags, process helper)

NNFX, SRC, WORK = cg.NNFX, cg.SRC, cg.WORK
RTOL, ATOL = 1e-3, 1e-5

def listed(path, refused_only):
    """CASE -> reason words of a list file (lines 'CASE words...' or, with
    refused_only, 'unsupported CASE reason')."""
    out = {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2 if refused_only else 1)
        if refused_only:
            if parts[0] == "unsupported":
                out[parts[1]] = parts[2] if len(parts) > 2 else ""
        else:
            out[parts[0]] = parts[1] if len(parts) > 1 else ""
    return out


def tensors(case, kind, n):
    arrs = []
    for k in range(n):
        p = onnx.TensorProto()
        with open(os.path.join(case, "test_data_set_0", "%s_%d.pb" % (kind, k)), "rb") as f:
            p.ParseFromString(f.read())
        arrs.append(onnx.numpy_helper.to_array(p))
    return arrs


def run_program(out, in_t, inputs):
    """Runs the program build_and_run built in out on inputs (C types in_t)
    once; its outputs go to out/out.bin."""
    files = []
    for i, x in enumerate(inputs):
        p = os.path.join(out, "in%d.bin" % i)
        if x.dtype == np.float16:  # generated C takes a half's bits (uint16_t)
            x = np.ascontiguousarray(x).view(np.uint16)
        np.ascontiguousarray(x, dtype=in_t[i]).tofile(p)
        files.append(p)
    return cg.run([os.path.join(out, "run"), "1"] + files + [os.path.join(out, "out.bin")])


def build_and_run(out, name, inputs):
    """The generated program's outputs (numpy arrays of their C types; a
    bounded one cut to its actual dims), its inputs' types and the bounded
    outputs' positions, or an error string."""
    hdr = open(os.path.join(out, name + ".h")).read()
    dims = "%s_run_dims(" % name in hdr  # an output whose size depends on the data: its actual dims
    built = cg.build_program(out, name, opt="-O1", dims=dims)
    if isinstance(built, str):
        return built
    in_t, out_t, out_n = built
    r = run_program(out, in_t, inputs)
    if r.returncode:
        return "generated program exited %d: %s" % (r.returncode, r.stdout[-500:])
    raw, outs, at = open(os.path.join(out, "out.bin"), "rb").read(), [], 0
    for t, cnt in zip(out_t, out_n):
        outs.append(np.frombuffer(raw, dtype=t, count=cnt, offset=at))
        at += cnt * np.dtype(t).itemsize
    bounded = set()
    if dims:  # a bounded output: its values first, zeros after them up to the bound
        rows = np.frombuffer(raw, dtype=np.int64, count=8 * len(outs), offset=at).reshape(len(outs), 8)
        for i, o in enumerate(outs):
            if "#define %s_OUTPUT%d_BOUNDED 1" % (name, i) not in hdr:
                continue
            size = int(np.prod(rows[i][:int(cg.header_macro(out, name, "OUTPUT%d_RANK" % i))]))
            if np.any(o[size:] != 0):
                return "output %d: nonzero values past its actual dims %s" % (i, rows[i])
            outs[i] = o[:size].reshape(rows[i][:int(cg.header_macro(out, name, "OUTPUT%d_RANK" % i))])
            bounded.add(i)
    return outs, in_t, bounded


def mismatch(got, want):
    """None when got matches ONNX's want, else why."""
    if got.size != want.size:
        return "%d values, ONNX has %d" % (got.size, want.size)
    w = want.ravel()
    g = got.astype(w.dtype if w.dtype != np.bool_ else np.uint8).ravel()
    if w.dtype.kind in "biu":
        bad = np.nonzero(g != w.astype(g.dtype))[0]
        return "value %d: %s, ONNX %s" % (bad[0], g[bad[0]], w[bad[0]]) if bad.size else None
    g, w = g.astype(np.float64), w.astype(np.float64)
    nan = np.isnan(w)
    if np.any(np.isnan(g) != nan):
        return "NaN where ONNX has none, or the reverse"
    ok = (g == w) | (np.abs(g - w) <= ATOL + RTOL * np.abs(w))
    bad = np.nonzero(~ok & ~nan)[0]
    return "value %d: %r, ONNX %r" % (bad[0], g[bad[0]], w[bad[0]]) if bad.size else None


def check(t, node_dir, refused):
    """(case, 'gen'|'refused', failure message or None)."""
    case = os.path.join(node_dir, "node", t)
    out = os.path.join(WORK, t)
    model = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False)
    in_names = [i.name for i in model.graph.input if i.name not in {x.name for x in model.graph.initializer}]
    cmd = [NNFX, "codegen", os.path.join(case, "model.onnx"), "-o", out, "--name", "m"]
    r = cg.run(cmd)
    fixed = []  # inputs whose values the refusal asked to fix (--value), as the test gives them
    while r.returncode == 3 and "--value " in r.stdout and len(fixed) < len(in_names):
        asked = [w.split("=")[0] for w in r.stdout.split("--value ")[1:]]
        asked = [a for a in asked if a in in_names and a not in fixed]
        if not asked:
            break
        for a in asked:  # a short list as numbers (repr is exact for float32 and float64), else the file
            k = in_names.index(a)
            x = tensors(case, "input", k + 1)[k]
            if 0 < x.size <= 16 and x.dtype.kind in "iuf" and x.dtype != np.float16:
                cmd += ["--value", "%s=%s" % (a, ",".join(repr(v) for v in x.reshape(-1).tolist()))]
            else:
                cmd += ["--value", "%s=%s" % (a, os.path.join(case, "test_data_set_0", "input_%d.pb" % k))]
        fixed += asked
        r = cg.run(cmd)
    if r.returncode:
        first = r.stdout.strip().splitlines()[0] if r.stdout.strip() else ""
        if t not in refused:
            return t, "refused", "codegen exited %d (not listed in node_refused.txt): %s" % (r.returncode, first)
        if r.returncode != 3 or os.path.exists(out) or "codegen" not in first:
            return t, "refused", "want exit 3 with nothing written; got %d: %s" % (r.returncode, first)
        if refused[t] not in r.stdout:
            return t, "refused", "the refusal lacks the listed words %r: %s" % (refused[t], first)
        return t, "refused", None
    if t in refused:
        return t, "gen", "listed in node_refused.txt but now generates: remove it from the list"
    inputs = tensors(case, "input", len(in_names))
    got = build_and_run(out, "m", inputs)
    if isinstance(got, str):
        return t, "gen", got
    got, in_t, bounded = got
    want = tensors(case, "output", len(model.graph.output))
    if len(got) != len(want):
        return t, "gen", "%d outputs, ONNX has %d" % (len(got), len(want))
    for k, (g, w) in enumerate(zip(got, want)):
        if w.dtype == np.float16 and g.dtype == np.uint16:  # a half's bits
            g = g.view(np.float16)
        why = mismatch(g, w)
        if not why and k in bounded and g.shape != w.shape:
            why = "dims %s, ONNX's %s" % (g.shape, w.shape)
        if why:
            return t, "gen", "output %d: %s" % (k, why)
    changeable = [f for f in fixed if inputs[in_names.index(f)].size]  # an empty list has no other values
    if changeable:  # other values in a fixed input: the run refuses them (1; the harness exits 3)
        k = in_names.index(changeable[0])
        other = [x.copy() for x in inputs]
        flat = other[k].reshape(-1)
        flat[0] = flat[0] + 1 if flat.dtype.kind in "iuf" else not flat[0]
        r = run_program(out, in_t, other)
        if r.returncode != 3:
            return t, "gen", "fixed input %s changed: the program exited %d, want 1 from m_run" % (changeable[0],
                                                                                                  r.returncode)
    shutil.rmtree(out, ignore_errors=True)
    return t, "gen", "fixed" if fixed else None


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        sys.exit(2)
    node_dir = sys.argv[4]
    if not os.path.isdir(os.path.join(node_dir, "node")):
        print("skip: no node tests at %s (the onnx_node_tests fixture writes them)" % node_dir)
        sys.exit(77)
    skip = listed(os.path.join(SRC, "tests", "node_tests", "expected_failures.txt"), True)
    refused = listed(os.path.join(HERE, "node_refused.txt"), False)
    cases = sys.argv[5:] or sorted(d for d in os.listdir(os.path.join(node_dir, "node")) if d not in skip)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    failures, gen, ref, nfixed = [], 0, 0, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for t, kind, why in pool.map(lambda t: check(t, node_dir, refused), cases):
            if why == "fixed":
                nfixed += 1
                why = None
            gen += kind == "gen" and not why
            ref += kind == "refused" and not why
            if why:
                failures.append(t)
                print("FAIL %s: %s" % (t, why))
    print("%d node tests nnfx runs: %d generate and match ONNX's outputs (%d of them with inputs fixed by --value "
          "as the refusal asked, and refusing other values), %d refused as listed, %d failures" %
          (len(cases), gen, nfixed, ref, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
