#!/usr/bin/env python3
"""Fault injection over whole nnfx command-line workflows (optimize,
quantize, prune, codegen, analyze, export, run, and push / pull against a
registry the test serves on 127.0.0.1, tests/publish/fake_registry.py):
each file operation (all of
them) and each heap allocation (all, or an even sample when there are too
many for the time budget) fails in turn, through the test-only entry point
nnfx_fault (tests/cli/fault_main.c). Every run must:
  - exit 0 (the failure was absorbed: every output then written), or 1, 2 or
    3 with an "nnfx CMD: ..." message; never a signal or a sanitizer report
    (under the sanitizer build LeakSanitizer checks every failure path for
    leaks at exit);
  - write nothing when it fails: the output folder exactly as it was (files
    there before keep their bytes, no new file, no temporary left), except a
    --report that records the failure (its exit_code is the run's);
  - leave every input byte for byte as it was.
push, when it succeeds, has put the model and its external data into the
registry byte for byte (the manifest under the tag names them); pull, when
it succeeds, has written exactly the pushed files beside -o, byte for byte,
and nothing else. Their failures say "nnfx push: ..." / "nnfx pull: ...".
Usage: fault_sweep.py NNFX_FAULT DATA_DIR TMP_DIR
Environment: NNFX_FAULT_BUDGET_S (seconds for the whole sweep, default 35;
a large one fails every allocation in turn), NNFX_FAULT_ONLY (workflow names,
comma-separated: only those)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "publish"))
import fake_registry  # noqa: E402

NNFX, DATA, TMP = sys.argv[1:4]
BUDGET = float(os.environ.get("NNFX_FAULT_BUDGET_S", "35"))
WORKERS = 2

# Each workflow: the command line (IN: the inputs folder, OUT: the output
# folder of the run, REG: the test registry's host:port), what to put in OUT
# first (files that must survive a failure unchanged), and the report that
# may record a failure. registry: the run talks to a registry that is
# "empty" or holds what a clean push of IN/ext.onnx put there ("pushed");
# stdin: what the run reads (a password).
WORKFLOWS = [
    dict(name="optimize",
         argv=["optimize", "IN/convbn.onnx", "-o", "OUT/o.onnx", "--pass", "fuse-conv-bn", "--pass", "dce",
               "--validate", "--input", "x=IN/batch.npy", "--labels", "IN/batch_labels.npy", "--report",
               "OUT/o.json"],
         report="o.json"),
    dict(name="optimize-text-ir",
         argv=["optimize", "IN/waste.fx", "-o", "OUT/w.fx", "--pass", "dce", "-q"]),
    dict(name="quantize",
         argv=["quantize", "IN/convbn.onnx", "-o", "OUT/q.onnx", "--calib", "x=IN/batch.npy", "--report",
               "OUT/q.json", "-q"],
         prepare={"q.onnx": b"an older model\n"}, report="q.json"),
    dict(name="prune",
         argv=["prune", "IN/convbn.onnx", "-o", "OUT/p.onnx", "--ratio", "0.5", "--report", "OUT/p.json", "-q"],
         report="p.json"),
    dict(name="codegen-new-folder",
         argv=["codegen", "IN/convbn.onnx", "-o", "OUT/cg/sub", "--shape", "x=1x3x8x8", "--report", "OUT/cg.json"]),
    dict(name="codegen-new-folder-report-inside",
         argv=["codegen", "IN/convbn.onnx", "-o", "OUT/cg", "--shape", "x=1x3x8x8", "--report", "OUT/cg/r.json",
               "--name", "net"]),
    dict(name="codegen-existing-folder",
         argv=["codegen", "IN/convbn.onnx", "-o", "OUT/cg", "--shape", "x=1x3x8x8", "--optimize", "size"],
         prepare={"cg/convbn.h": b"an older header\n", "cg/notes.txt": b"mine\n"}),
    dict(name="analyze",
         argv=["analyze", "IN/convbn.onnx", "--compare", "IN/ext.onnx", "--json", "OUT/a.json", "--html",
               "OUT/a.html", "-q"]),
    dict(name="export-external-data",
         argv=["export", "IN/ext.onnx", "-o", "OUT/e.onnx", "--external-data"]),
    dict(name="run-output-dir",
         argv=["run", "IN/convbn.onnx", "--input", "x=IN/x.npy", "--output-dir", "OUT/y"]),
    # a Basic login; the external data (over 4 KiB) goes up in PATCH chunks
    dict(name="push",
         argv=["push", "IN/ext.onnx", "REG/m:v1", "--plain-http", "--chunk-size", "4096", "--timeout", "60",
               "--username", "ci", "--password-stdin", "--annotation", "org.example.k=v"],
         registry="empty", auth="basic", stdin=b"s3cret\n"),
    # a Bearer token; -o replaces an older file (kept until the commit)
    dict(name="pull",
         argv=["pull", "REG/m:v1", "-o", "OUT/ext.onnx", "--plain-http", "--timeout", "60", "--username", "ci",
               "--password-stdin"],
         registry="pushed", auth="bearer", stdin=b"s3cret\n", prepare={"ext.onnx": b"an older model\n"}),
]

PUSHED = {}  # the registry's content after a clean push: blobs, manifests
REGISTRIES = {}  # thread id -> its own fake_registry.Fake
REG_LOCK = threading.Lock()


def registry():
    """The calling thread's registry (started on first use)."""
    with REG_LOCK:
        f = REGISTRIES.get(threading.get_ident())
        if f is None:
            f = REGISTRIES[threading.get_ident()] = quiet(fake_registry.Fake()).start()
        return f


def quiet(f):
    """f, not printing the tracebacks of answers to a client that is gone
    (a run that failed mid-request closes its connection)."""
    for srv in f.servers.values():
        srv.handle_error = lambda request, client_address: None
    return f


def registry_reset(f, wf):
    """Sets f up for a run of wf: its login, and empty or as pushed."""
    f.auth = wf.get("auth")
    f.blobs = dict(PUSHED.get("blobs", {})) if wf["registry"] == "pushed" else {}
    f.manifests = dict(PUSHED.get("manifests", {})) if wf["registry"] == "pushed" else {}
    f.uploads, f.log = {}, []


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def tree(top):
    """Every entry under top: relative path -> checksum (files) or 'dir'."""
    out = {}
    for root, dirs, files in os.walk(top):
        for d in dirs:
            out[os.path.relpath(os.path.join(root, d), top)] = "dir"
        for f in files:
            p = os.path.join(root, f)
            out[os.path.relpath(p, top)] = "link" if os.path.islink(p) else sha(p)
    return out


def setup_inputs(indir):
    os.makedirs(indir)
    for f in ["convbn.onnx", "x.npy", "batch.npy", "batch_labels.npy", "waste.fx", "waste.fx.safetensors"]:
        shutil.copy(os.path.join(DATA, f), indir)
    # a model whose weights live in an external data file (ext.onnx.data)
    r = subprocess.run([NNFX, "export", os.path.join(indir, "convbn.onnx"), "-o", os.path.join(indir, "ext.onnx"),
                        "--external-data"], capture_output=True)
    if r.returncode != 0 or not os.path.exists(os.path.join(indir, "ext.onnx.data")):
        sys.exit("cannot make the external-data model: " + r.stderr.decode(errors="replace"))


def run_once(wf, indir, outdir, env_extra, reg=None):
    """Runs the workflow in a fresh outdir (against registry reg, set up
    afresh, when the workflow has one); returns (rc, stderr, counts)."""
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    for rel, data in wf.get("prepare", {}).items():
        p = os.path.join(outdir, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    counts = os.path.join(outdir + ".counts")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NNFX_FAULT_")}
    env.update(NNFX_FAULT_COUNTS=counts, PATH="/nonexistent", **env_extra)
    host = "127.0.0.1:0"
    if "registry" in wf:
        reg = reg or registry()
        registry_reset(reg, wf)
        host = "127.0.0.1:%d" % reg.port
        env.update(no_proxy="*", NO_PROXY="*", DOCKER_CONFIG=os.path.join(TMP, "no-docker-config"))
    argv = [NNFX] + [a.replace("IN/", indir + "/").replace("OUT/", outdir + "/").replace("REG/", host + "/")
                     for a in wf["argv"]]
    r = subprocess.run(argv, capture_output=True, env=env, timeout=120, input=wf.get("stdin", b""))
    c = (0, 0)
    if os.path.exists(counts):
        with open(counts) as f:
            c = tuple(int(v) for v in f.read().split())
        os.unlink(counts)
    return r.returncode, r.stderr.decode(errors="replace"), c


def pushed_ok(f, indir):
    """Problems with what a push that succeeded left in registry f: the
    manifest under v1 must name the model and its external data, whose
    blobs must be the input files byte for byte, and its config blob."""
    man = f.manifests.get("v1")
    if man is None:
        return ["no manifest under the tag"]
    m = json.loads(man)
    want = {}
    for name in ("ext.onnx", "ext.onnx.data"):
        with open(os.path.join(indir, name), "rb") as fh:
            want[name] = fh.read()
    got = {}
    for layer in m.get("layers", []):
        title = layer.get("annotations", {}).get("org.opencontainers.image.title")
        blob = f.blobs.get(layer.get("digest"))
        if blob is None or fake_registry.digest_of(blob) != layer.get("digest") or len(blob) != layer.get("size"):
            return ["layer %r: blob missing or not matching its descriptor" % title]
        got[title] = blob
    problems = [] if got == want else ["the layers are not the input files: %s" % sorted(got)]
    cfg = f.blobs.get(m.get("config", {}).get("digest"))
    if cfg is None:
        problems.append("the config blob is missing")
    elif PUSHED and json.loads(cfg) != json.loads(
            PUSHED["blobs"][json.loads(PUSHED["manifests"]["v1"])["config"]["digest"]]):
        # the config (nnfx's analysis and provenance) as the clean push wrote it, not one cut short
        problems.append("the config differs from a clean push's: %s" % cfg[:300])
    return problems


def check_run(wf, kind, k, rc, err, before, outdir, ref_tree, inputs_before, indir, reg=None):
    """The problems of one faulty run (empty list: it behaved)."""
    problems = []
    where = "%s: %s %d" % (wf["name"], kind, k)
    cmd = wf["argv"][0]
    if wf.get("registry") and rc in (1, 2, 3) and not any(line.startswith("nnfx %s: " % cmd)
                                                         for line in err.splitlines()):
        problems.append("%s: exit %d without an 'nnfx %s: ...' message (stderr: %r)" % (where, rc, cmd, err[-500:]))
    if cmd == "push" and rc == 0:
        problems += ["%s: exit 0 but %s" % (where, p) for p in pushed_ok(reg, indir)]
    if cmd == "pull" and rc == 0:
        after = tree(outdir)
        want = {n: sha(os.path.join(indir, n)) for n in ("ext.onnx", "ext.onnx.data")}
        if after != want:
            problems.append("%s: exit 0 but the output folder is not the pushed files (and nothing else): %s" %
                            (where, sorted(set(after.items()) ^ set(want.items()))[:6]))
    if "Sanitizer" in err or "runtime error:" in err:
        problems.append("%s: sanitizer report:\n%s" % (where, err[-3000:]))
    after = tree(outdir)
    if rc == 0:
        missing = [p for p in ref_tree if p not in after]
        if missing:
            problems.append("%s: exit 0 but outputs missing: %s" % (where, missing))
    elif rc in (1, 2, 3):
        if not any(line.startswith("nnfx ") for line in err.splitlines()):
            problems.append("%s: exit %d without an 'nnfx CMD: ...' message (stderr: %r)" % (where, rc, err[-500:]))
        rep = wf.get("report")
        if rep and rep in after and rep not in before:
            try:
                with open(os.path.join(outdir, rep)) as f:
                    d = json.load(f)
                if d.get("exit_code") != rc:
                    problems.append("%s: exit %d but the report says %r" % (where, rc, d.get("exit_code")))
            except (OSError, ValueError) as e:
                problems.append("%s: a failed run left an unreadable report: %s" % (where, e))
            del after[rep]
        if after != before:
            changed = sorted(set(after.items()) ^ set(before.items()))
            problems.append("%s: exit %d but the output folder changed: %s" % (where, rc, changed[:6]))
    else:
        problems.append("%s: exit %d (a crash?); stderr: %s" % (where, rc, err[-1500:]))
    if tree(indir) != inputs_before:
        problems.append("%s: an input changed" % where)
    return problems


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    indir = os.path.join(TMP, "in")
    setup_inputs(indir)
    inputs_before = tree(indir)
    problems = []
    t_start = time.monotonic()
    # what a clean push puts into a registry (the registry pull reads from)
    seed = quiet(fake_registry.Fake()).start()
    seed_wf = next(wf for wf in WORKFLOWS if wf["name"] == "push")
    rc, err, _ = run_once(seed_wf, indir, os.path.join(TMP, "seed"), {}, seed)
    if rc != 0:
        problems.append("the clean push that seeds the registry failed (exit %d): %s" % (rc, err[-2000:]))
    else:
        problems += ["the clean push: " + p for p in pushed_ok(seed, indir)]
    PUSHED.update(blobs=dict(seed.blobs), manifests=dict(seed.manifests))
    seed.stop()
    refs = []
    only = [w for w in os.environ.get("NNFX_FAULT_ONLY", "").split(",") if w]
    for wf in WORKFLOWS:  # the runs without a fault: what each writes, and how many operations
        if only and wf["name"] not in only:
            continue
        outdir = os.path.join(TMP, "ref")
        t0 = time.monotonic()
        rc, err, counts = run_once(wf, indir, outdir, {})
        dt = time.monotonic() - t0
        if rc != 0 or "Sanitizer" in err or "runtime error:" in err:
            problems.append("%s: the run without faults failed (exit %d): %s" % (wf["name"], rc, err[-2000:]))
            continue
        refs.append((wf, counts, dt, tree(outdir)))
    # the plan: every file operation of every workflow, then allocations
    # sampled evenly with what time is left
    jobs = []
    for wf, (nalloc, nio), dt, ref_tree in refs:
        jobs += [(wf, "NNFX_FAULT_IO", k, ref_tree) for k in range(1, nio + 1)]
    t_ref = sum(r[2] for r in refs) / max(1, len(refs))
    spent = time.monotonic() - t_start
    io_time = len(jobs) * t_ref / WORKERS
    per_wf = max(10, int((BUDGET - spent - io_time) * WORKERS / max(t_ref, 1e-3) / max(1, len(refs))))
    summary = []
    for wf, (nalloc, nio), dt, ref_tree in refs:
        if nalloc <= per_wf:
            ks = list(range(1, nalloc + 1))
        else:  # evenly spread, first and last included
            ks = sorted({1 + (i * (nalloc - 1)) // (per_wf - 1) for i in range(per_wf)})
        jobs += [(wf, "NNFX_FAULT_ALLOC", k, ref_tree) for k in ks]
        summary.append("%s: %d file operations (all failed in turn), %d allocations (%d failed in turn)" %
                       (wf["name"], nio, nalloc, len(ks)))

    stats = {}

    def work(job):
        wf, var, k, ref_tree = job
        outdir = os.path.join(TMP, "out%d" % threading.get_ident())  # one folder per worker thread
        rc, err, _ = run_once(wf, indir, outdir, {var: str(k)})
        # what OUT held before the run: the prepared files
        before = {}
        for rel, data in wf.get("prepare", {}).items():
            before[rel] = hashlib.sha256(data).hexdigest()
            d = os.path.dirname(rel)
            while d:
                before[d] = "dir"
                d = os.path.dirname(d)
        kind = "file operation" if var == "NNFX_FAULT_IO" else "allocation"
        reg = registry() if "registry" in wf else None
        return wf["name"], rc, check_run(wf, kind, k, rc, err, before, outdir, ref_tree, inputs_before, indir, reg)

    with ThreadPoolExecutor(WORKERS) as ex:
        results = list(ex.map(work, jobs))
    for f in REGISTRIES.values():
        f.stop()
    for name, rc, probs in results:
        s = stats.setdefault(name, {"failed": 0, "absorbed": 0})
        s["absorbed" if rc == 0 else "failed"] += 1
        problems += probs
    for line in summary:
        print(line)
    for name, s in stats.items():
        print("%s: %d runs gave an error, %d absorbed the failure" % (name, s["failed"], s["absorbed"]))
    print("fault sweep: %d runs in %.1f s" % (len(jobs), time.monotonic() - t_start))
    for p in problems[:25]:
        print("FAIL: " + p)
    if len(problems) > 25:
        print("... and %d more" % (len(problems) - 25))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
