#!/usr/bin/python3
"""Checks the deployment files under deploy/: parses their YAML, checks the
wiring (shard count = completions = matrix = parallel, artifact paths,
shared volume), then runs the shell commands they hold on a small fleet,
with the environment each shard would get (JOB_COMPLETION_INDEX, the GitHub
matrix value, CI_NODE_INDEX/CI_NODE_TOTAL), and checks the merged report.
Usage: run_deploy.py NNFX SOURCE_DIR WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys

import yaml

NNFX, SRC, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
BIN = os.path.join(WORK, "bin")
os.makedirs(BIN, exist_ok=True)
if not os.path.exists(os.path.join(BIN, "nnfx")):
    os.symlink(os.path.abspath(NNFX), os.path.join(BIN, "nnfx"))
PATH = BIN + ":/usr/bin:/bin"
FLEET = 10


def fresh(name, broken=False):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    args = [sys.executable, os.path.join(SRC, "tests/fleet/make_fleet.py"), "models", str(FLEET)]
    subprocess.run(args + (["--broken"] if broken else []), cwd=d, check=True)
    return d


def sh(script, env, cwd, errexit=False):
    full = {"PATH": PATH, "HOME": cwd}
    full.update({k: str(v) for k, v in env.items()})
    r = subprocess.run(["/bin/sh"] + (["-e"] if errexit else []) + ["-c", script], env=full, cwd=cwd,
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def check_fleet(d, models, want_rc, rc):
    f = json.load(open(os.path.join(d, "out/fleet.json")))
    assert rc == want_rc, (d, rc)
    assert f["models"] == models and len({e["model"] for e in f["results"]}) == models, (d, f["models"])
    assert not f["missing_shards"], f["missing_shards"]
    ok = [e for e in f["results"] if e["result"] == "ok"]
    exported = os.listdir(os.path.join(d, "out/exported"))
    assert len(exported) == len(ok), (d, exported)
    assert os.path.exists(os.path.join(d, "out/fleet.html"))


def k8s():
    docs = {}
    for name in ("fleet-shards.yaml", "fleet-merge.yaml", "fleet-volume.yaml"):
        for doc in yaml.safe_load_all(open(os.path.join(SRC, "deploy/k8s", name))):
            docs[doc["metadata"]["name"]] = doc
    job, merge, pvc = docs["nnfx-fleet-shards"], docs["nnfx-fleet-merge"], docs["nnfx-fleet"]
    assert job["kind"] == "Job" and job["spec"]["completionMode"] == "Indexed"
    assert pvc["kind"] == "PersistentVolumeClaim" and pvc["spec"]["accessModes"] == ["ReadWriteMany"]
    c = job["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in c["env"]}
    n = int(env["SHARDS"])
    assert job["spec"]["completions"] == n and job["spec"]["parallelism"] == n
    for j in (job, merge):
        spec = j["spec"]["template"]["spec"]
        cont = spec["containers"][0]
        assert cont["image"] == "nnfx:latest" and cont["command"] == ["/bin/sh", "-c"]
        assert spec["volumes"][0]["persistentVolumeClaim"]["claimName"] == "nnfx-fleet"
        assert cont["volumeMounts"][0]["mountPath"] == cont["workingDir"]
    mc = merge["spec"]["template"]["spec"]["containers"][0]
    menv = {e["name"]: e["value"] for e in mc["env"]}
    assert menv["OUT"] == env["OUT"]
    for broken in (False, True):
        d = fresh("k8s", broken)
        rcs = [sh(c["args"][0], dict(env, JOB_COMPLETION_INDEX=i), d)[0] for i in range(n)]
        assert rcs.count(0) == (n if not broken else n - 1), rcs
        rc, log = sh(mc["args"][0], menv, d)
        check_fleet(d, FLEET + broken, 1 if broken else 0, rc)
    # a push that fails (nothing listens there) is in the merged report, in each model's row
    d = fresh("k8s-push")
    bad = dict(env, REGISTRY="127.0.0.1:9/fleet")
    rcs = [sh(c["args"][0], dict(bad, JOB_COMPLETION_INDEX=i), d)[0] for i in range(n)]
    assert rcs == [1] * n, rcs
    rc, log = sh(mc["args"][0], menv, d)
    f = json.load(open(os.path.join(d, "out/fleet.json")))
    assert rc == 1 and f["models"] == FLEET and f["errors"] == FLEET and not f["duplicates"], (rc, f["models"])
    for e in f["results"]:
        assert e["failed_step"] == "push" and "127.0.0.1:9" in e["error"] and e["nodes_before"], e


def github():
    wf = yaml.safe_load(open(os.path.join(SRC, "deploy/ci/github-fleet.yml")))
    assert "on" in wf or True in wf  # YAML 1.1 reads the key `on` as true
    shard, merge = wf["jobs"]["shard"], wf["jobs"]["merge"]
    values = shard["strategy"]["matrix"]["shard"]
    n = int(wf["env"]["SHARDS"])
    assert values == list(range(1, n + 1)) and shard["strategy"]["fail-fast"] is False
    assert merge["needs"] == "shard" and merge["if"] == "always()"
    up = [s for s in shard["steps"] if s.get("uses", "").startswith("actions/upload-artifact")][0]
    down = [s for s in merge["steps"] if s.get("uses", "").startswith("actions/download-artifact")][0]
    assert up["with"]["path"].rstrip("/") == down["with"]["path"] == wf["env"]["OUT"] + "/reports"
    d = fresh("github")

    def run_job(job, matrix):
        env = dict(wf["env"])
        for k, v in job.get("env", {}).items():
            env[k] = v.replace("${{ matrix.shard }}", str(matrix)) if "matrix.shard" in v else ""
        failed = False
        for step in job["steps"]:
            if "run" not in step or (failed and step.get("if") != "always()"):
                continue
            assert step.get("shell") == "sh" and "${{" not in step["run"], step
            rc, log = sh(step["run"], env, d, errexit=True)  # GitHub runs sh -e {0}
            failed = failed or rc != 0
        return failed

    assert not any([run_job(shard, k) for k in values])
    failed = run_job(merge, None)
    rc = 1 if failed else 0
    check_fleet(d, FLEET, 0, rc)


def gitlab():
    ci = yaml.safe_load(open(os.path.join(SRC, "deploy/ci/gitlab-fleet.yml")))
    shard, merge = ci["fleet-shard"], ci["fleet-merge"]
    n = shard["parallel"]
    assert merge["needs"] == ["fleet-shard"] and merge["when"] == "always"
    assert shard["stage"] in ci["stages"] and merge["stage"] in ci["stages"]
    assert ci["stages"].index(shard["stage"]) < ci["stages"].index(merge["stage"])
    assert shard["image"]["entrypoint"] == [""] and shard["artifacts"]["when"] == "always"
    assert shard["artifacts"]["paths"] == [ci["variables"]["OUT"] + "/reports/"]
    d = fresh("gitlab")
    for k in range(1, n + 1):
        rc, log = sh("\n".join(shard["script"]), dict(ci["variables"], CI_NODE_INDEX=k, CI_NODE_TOTAL=n), d, True)
        assert rc == 0, (k, log)
    rc, log = sh("\n".join(merge["script"]), ci["variables"], d, True)
    check_fleet(d, FLEET, 0, rc)


for name, fn in (("k8s", k8s), ("github", github), ("gitlab", gitlab)):
    fn()
    print(f"deploy {name}: ok")
