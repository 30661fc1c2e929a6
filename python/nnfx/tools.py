"""The command-line tools as functions returning plain Python data.

analyze, compare, quantize, prune and codegen have no single library entry
point that produces their reports (the reports are built by the command), so
these functions run the `nnfx` executable in a subprocess with its JSON
output and return the parsed JSON. The executable is $NNFX_EXE, else the
installed one (`cmake --install`), else the `nnfx` beside the loaded
libnnfx.so (a build tree), else `nnfx` on PATH.
Options are the command line's: a keyword foo_bar=V becomes --foo-bar V
(True: the bare flag; a list: repeated; a dict: NAME=VALUE pairs, arrays
saved to .npy files). A model is a path or a GraphModule (saved first).
"""
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

from . import _lib as L


def executable():
    exe = os.environ.get("NNFX_EXE")
    if exe:
        return exe
    try:  # written by `cmake --install`
        from ._install import EXE
        if os.path.isfile(EXE):
            return EXE
    except ImportError:
        pass
    cand = os.path.join(os.path.dirname(L.LIB_PATH), "nnfx")
    if os.path.isfile(cand) and os.access(cand, os.X_OK):
        return cand
    found = shutil.which("nnfx")
    if not found:
        raise L.FileError("the nnfx executable was not found (set NNFX_EXE)", L.IO)
    return found


def convert(src, dst):
    """Converts a model between ONNX and the text form with its values
    (PATH.safetensors) by running `nnfx export SRC -o DST`; raises the
    command's error."""
    r = subprocess.run([executable(), "export", os.fspath(src), "-o", os.fspath(dst)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise L.FileError("nnfx export %s -o %s: %s" % (src, dst, r.stderr.strip()), L.IO)


def _model(m, tmp, name):
    if isinstance(m, (str, os.PathLike)):
        return os.fspath(m)
    path = os.path.join(tmp, name + ".onnx")
    m.save(path)
    return path


def _opts(kw, tmp):
    out = []
    for k, v in kw.items():
        if v is None or v is False:
            continue
        flag = "--" + k.replace("_", "-")
        if v is True:
            out.append(flag)
        elif isinstance(v, dict):
            for name, val in v.items():
                if isinstance(val, np.ndarray):
                    p = os.path.join(tmp, "%s_%s.npy" % (k, name))
                    np.save(p, val)
                    val = p
                elif isinstance(val, (list, tuple)):
                    val = "x".join(str(d) for d in val)
                out += [flag, "%s=%s" % (name, val)]
        elif isinstance(v, (list, tuple)):
            for x in v:
                out += [flag, str(x)]
        else:
            out += [flag, str(v)]
    return out


def _run(argv, ok=(0,)):
    r = subprocess.run([executable()] + argv, capture_output=True, text=True)
    if r.returncode not in ok:
        status = {2: L.INVALID_ARG, 3: L.PARSE}.get(r.returncode, L.RUNTIME)
        raise L.error_from_status(status, "nnfx %s: %s" % (argv[0], (r.stderr or r.stdout).strip()))
    return r


def analyze(model, **options):
    """`nnfx analyze MODEL --json -`: the report as a dict."""
    with tempfile.TemporaryDirectory() as tmp:
        r = _run(["analyze", _model(model, tmp, "model"), "--json", "-"] + _opts(options, tmp), ok=(0, 1))
        return json.loads(r.stdout)


def compare(a, b, **options):
    """`nnfx compare A B --json -`: the result as a dict (a disagreement is a
    result, not an exception)."""
    with tempfile.TemporaryDirectory() as tmp:
        r = _run(["compare", _model(a, tmp, "a"), _model(b, tmp, "b"), "--json", "-", "-q"] + _opts(options, tmp),
                 ok=(0, 1))
        return json.loads(r.stdout)


def quantize(model, output, calib, **options):
    """`nnfx quantize MODEL -o OUTPUT --calib NAME=... --report -`: writes
    OUTPUT, returns the report. calib: {input name: array of samples}."""
    with tempfile.TemporaryDirectory() as tmp:
        r = _run(["quantize", _model(model, tmp, "model"), "-o", os.fspath(output), "-q", "--report", "-"]
                 + _opts({"calib": calib}, tmp) + _opts(options, tmp))
        return json.loads(r.stdout)


def prune(model, output, **options):
    """`nnfx prune MODEL -o OUTPUT --report -` with ratio=... or sparsity=...:
    writes OUTPUT, returns the report."""
    with tempfile.TemporaryDirectory() as tmp:
        r = _run(["prune", _model(model, tmp, "model"), "-o", os.fspath(output), "-q", "--report", "-"]
                 + _opts(options, tmp))
        return json.loads(r.stdout)


def codegen(model, output_dir, **options):
    """`nnfx codegen MODEL -o DIR --report FILE`: writes the C files, returns
    the report."""
    with tempfile.TemporaryDirectory() as tmp:
        rep = os.path.join(tmp, "report.json")
        _run(["codegen", _model(model, tmp, "model"), "-o", os.fspath(output_dir), "--report", rep]
             + _opts(options, tmp))
        with open(rep) as f:
            return json.load(f)
