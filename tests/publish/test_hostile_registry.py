#!/usr/bin/python3
"""nnfx push / pull against a hostile registry (fake_registry.Fake, on
127.0.0.1 with a second server as "another origin"), one case per class of
defect: credentials sent off the registry's origin, header injection
through a token or a login, server text printed raw (escape sequences, an
echoed password), downloads larger than the manifest says, a server that
drips or stalls, a pull that fails half way or is killed, sizes that are not
byte counts.

usage: test_hostile_registry.py NNFX SOURCE_DIR TMP"""
import base64
import os
import shutil
import signal
import subprocess
import sys
import time

NNFX, SRC, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(SRC, "tests", "publish"))
import fake_registry  # noqa: E402

MODEL = os.path.join(SRC, "tests", "data", "digits", "digits_cnn.onnx")
passed, failed = 0, []


def check(what, cond, detail=""):
    global passed
    if cond:
        passed += 1
    else:
        failed.append(what)
        print("FAIL: %s%s" % (what, ("\n    " + detail.replace("\n", "\n    ")) if detail else ""))


def nnfx(*args, stdin=None, timeout=30, env=None):
    """Runs nnfx; returns (exit code, stdout, stderr as bytes, seconds)."""
    t = time.monotonic()
    try:
        p = subprocess.run([NNFX] + list(args), input=stdin, capture_output=True, timeout=timeout,
                           env=dict(os.environ, **(env or {})))
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t
    except subprocess.TimeoutExpired as e:
        return "timeout", e.stdout or b"", e.stderr or b"", time.monotonic() - t


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def fresh_dir(name):
    d = os.path.join(TMP, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def expect(what, got, code):
    check("%s: exit %s" % (what, code), got[0] == code,
          "exit %s; stderr: %s" % (got[0], got[2].decode(errors="replace")[-600:]))


shutil.rmtree(TMP, ignore_errors=True)
os.makedirs(TMP)
PW = fake_registry.PASSWORD.encode() + b"\n"
BASIC = base64.b64encode(b"ci:s3cret").decode()
MODEL_BYTES = b"ONNX-ish model bytes " * 50
DATA_BYTES = b"external data " * 80


def fake(**kw):
    f = fake_registry.Fake()
    for k, v in kw.items():
        setattr(f, k, v)
    return f.start()


# --- 1. credentials only to the registry's origin ----------------------------------------------
for where in ("other", "localhost"):
    f = fake(auth="basic", upload_to=where)
    r = nnfx("push", MODEL, "127.0.0.1:%d/m:v1" % f.port, "--plain-http", "--username", "ci", "--password-stdin",
             "--chunk-size", "4096", stdin=PW)
    expect("push with uploads on %s" % where, r, 0)
    uploads = [q for q in f.log if "/uploads/" in q["path"] and q["method"] in ("PUT", "PATCH")]
    off_origin = [q for q in uploads if q["server"] == "other" or q["headers"].get("host", "").startswith("localhost")]
    check("uploads went to %s" % where, len(off_origin) >= 3, str([(q["server"], q["path"]) for q in uploads]))
    check("no Authorization sent to the upload Location on %s" % where,
          all("authorization" not in q["headers"] for q in off_origin),
          str([q["headers"].get("authorization") for q in off_origin]))
    check("the registry itself got the login", len(f.requests("main", "authorization")) > 0)
    f.stop()

# a Location elsewhere that asks for a login gets none
f = fake(auth="basic", upload_to="other", other_401=True)
r = nnfx("push", MODEL, "127.0.0.1:%d/m:v1" % f.port, "--plain-http", "--username", "ci", "--password-stdin", stdin=PW)
expect("push whose upload Location asks for a login", r, 3)
check("says credentials go only to the registry", b"sends credentials only there" in r[2], r[2].decode()[-400:])
check("the other origin never got Authorization", not f.requests("other", "authorization"))
f.stop()

# blob redirects (a CDN on another port; localhost for 127.0.0.1), Bearer
# token from a realm on another origin: the token goes to the registry only
for where in ("other", "localhost"):
    f = fake(auth="bearer", realm_other=True, blob_redirect=where)
    f.add_artifact("v1", MODEL_BYTES, DATA_BYTES)
    d = fresh_dir("redirect_" + where)
    r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http", "--username", "ci",
             "--password-stdin", stdin=PW)
    expect("pull with blobs redirected to %s" % where, r, 0)
    check("pulled bytes equal (%s)" % where, read(d + "/m.onnx") == MODEL_BYTES)
    hops = [q for q in f.log if "/blobs/" in q["path"] and
            (q["server"] == "other" or q["headers"].get("host", "").startswith("localhost"))]
    check("the blobs were fetched from %s" % where, len(hops) >= 2)
    check("no Authorization on the redirected blob requests (%s)" % where,
          all("authorization" not in q["headers"] for q in hops), str([q["headers"] for q in hops]))
    tok = [q for q in f.log if q["path"].startswith("/token")]
    check("Basic credentials to the realm (as docker does)",
          tok and tok[-1]["headers"].get("authorization") == "Basic " + BASIC)
    check("the Bearer token only to the registry's origin",
          all(q["server"] == "main" and not q["headers"].get("host", "").startswith("localhost")
              for q in f.log if q["headers"].get("authorization", "").startswith("Bearer")))
    f.stop()

# an https registry's redirects and upload locations must stay https (a
# self-signed certificate, trusted with --ca-file)
if shutil.which("openssl"):
    cert, key = os.path.join(TMP, "cert.pem"), os.path.join(TMP, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    for case in ("upload", "redirect"):
        f = fake_registry.Fake(tls=(cert, key))
        f.auth = "basic"
        if case == "upload":
            f.upload_to = "other"
        else:
            f.blob_redirect = "other"
        f.start()
        f.add_artifact("v1", MODEL_BYTES)
        d = fresh_dir("tls_" + case)
        ok = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/ok.onnx", "--username", "ci", "--password-stdin",
                  "--ca-file", cert, stdin=PW) if case == "upload" else None
        if ok:
            expect("an https registry (self-signed, trusted)", ok, 0)
        if case == "upload":
            r = nnfx("push", MODEL, "127.0.0.1:%d/m:v1" % f.port, "--username", "ci", "--password-stdin",
                     "--ca-file", cert, stdin=PW)
        else:
            r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--username", "ci",
                     "--password-stdin", "--ca-file", cert, stdin=PW)
        expect("https registry, %s on plain http" % case, r, 3)
        check("says the Location is not https (%s)" % case, b"is not https" in r[2], r[2].decode()[-300:])
        check("nothing went to the plain-http origin (%s)" % case, not f.requests("other"))
        f.stop()

# --- 2. header values with control bytes ------------------------------------------------------
f = fake(auth="bearer", token="tok\r\nX-Injected: yes")
f.add_artifact("v1", MODEL_BYTES)
d = fresh_dir("crlf")
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http", "--username", "ci",
         "--password-stdin", stdin=PW)
expect("a token with CR LF", r, 3)
check("says the token would inject headers", b"control bytes" in r[2], r[2].decode()[-300:])
check("no injected header reached the registry", not f.requests(header="X-Injected"))
check("nothing written (crlf)", os.listdir(d) == [])
f.stop()
f = fake(auth="basic")
r = nnfx("push", MODEL, "127.0.0.1:%d/m:v1" % f.port, "--plain-http", "--username", "ci\r\nX-Injected: yes",
         "--password-stdin", stdin=PW)
expect("a user name with CR LF", r, 2)
check("says the user name holds a control byte", b"user name holds a control byte" in r[2], r[2].decode()[-300:])
cfg = fresh_dir("dockercfg_crlf")
with open(cfg + "/config.json", "w") as out:
    out.write('{"auths": {"127.0.0.1:%d": {"auth": "%s"}}}' %
              (f.port, base64.b64encode(b"ci:s3cret\r\nX-Injected: yes").decode()))
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", cfg + "/m.onnx", "--plain-http", env={"DOCKER_CONFIG": cfg})
expect("docker config credentials with CR LF", r, 3)
check("says the password holds a control byte", b"password holds a control byte" in r[2], r[2].decode()[-300:])
check("no injected header (docker config)", not f.requests(header="X-Injected"))
f.stop()

# --- 3. server text escaped, secrets redacted ---------------------------------------------------
evil = ('{"errors":[{"code":"DENIED\\u001b[2J","message":"\\u001b]0;pwned\\u0007\\u001b[31mred '
        'password=s3cret auth=Basic %s \\u009b31m"}]}' % BASIC).encode()
f = fake(auth="basic", manifest_error=(400, evil))
d = fresh_dir("evil_error")
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http", "--username", "ci",
         "--password-stdin", stdin=PW)
expect("a registry error with escape sequences", r, 3)
err = r[2]
check("no ESC, BEL or C1 byte printed", not any(b in err for b in (b"\x1b", b"\x07", b"\xc2\x9b")), repr(err))
check("the escape sequence is shown escaped", b"\\x1b]0;pwned\\x07" in err, repr(err))
check("the echoed password is redacted", b"s3cret" not in err and BASIC.encode() not in err and b"[redacted]" in err,
      repr(err))
f.stop()

# --- 4. downloads bounded by the manifest's size -----------------------------------------------
for mode in ("endless", "huge-length"):
    f = fake(blob_mode=mode)
    f.add_artifact("v1", b"m" * 1000)
    d = fresh_dir("oversize_" + mode)
    r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http")
    expect("a blob longer than its manifest says (%s)" % mode, r, 3)
    check("says it is longer than 1000 bytes (%s)" % mode, b"longer than 1000 bytes" in r[2], r[2].decode()[-300:])
    time.sleep(0.2)
    check("stopped early: under 16 MiB sent (%s: %d)" % (mode, f.sent), f.sent < (16 << 20))
    check("no file left (%s)" % mode, os.listdir(d) == [], str(os.listdir(d)))
    f.stop()
f = fake()
f.add_artifact("v1", b"m" * 2000)
d = fresh_dir("max_size")
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http", "--max-size", "1K")
expect("a layer over --max-size", r, 3)
check("says --max-size", b"--max-size" in r[2], r[2].decode()[-300:])
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http", "--max-size", "1.5G")
expect("--max-size that is not a byte count", r, 2)
# sizes that are not exact byte counts, digests that are not sha256 hex
for i, size in enumerate(("1e999", "1000.5", "-1", '"2000"', "9007199254740994", "1e400")):
    f.add_artifact("s%d" % i, b"m" * 2000, model_size=size)
    r = nnfx("pull", "127.0.0.1:%d/m:s%d" % (f.port, i), "-o", d + "/m.onnx", "--plain-http")
    expect("manifest size %s" % size, r, 3)
    check("says the size is not a byte count (%s)" % size, b"not a byte count" in r[2], r[2].decode()[-300:])
f.add_artifact("bad_digest", b"m" * 10, model_digest="sha256:../../../../v2/_catalog?" + "a" * 42)
r = nnfx("pull", "127.0.0.1:%d/m:bad_digest" % f.port, "-o", d + "/m.onnx", "--plain-http")
expect("a digest that is not hex", r, 3)
check("says the digest is not sha256 hex", b"64 lowercase hex" in r[2], r[2].decode()[-300:])
check("no request for it went out", not [q for q in f.log if "_catalog" in q["path"]])
check("nothing written (sizes, digests)", os.listdir(d) == [], str(os.listdir(d)))
f.stop()

# --- 5. deadline, low speed, a FIFO docker config ---------------------------------------------
f = fake(blob_mode="drip")
f.add_artifact("v1", b"d" * 1000)
d = fresh_dir("drip")
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http", "--timeout", "2")
expect("a dripping blob under --timeout 2", r, 3)
check("says the time limit ran out", b"time limit of 2 s (--timeout) ran out" in r[2], r[2].decode()[-300:])
check("within the limit (%.1f s)" % r[3], r[3] < 6)
check("no file left (drip)", os.listdir(d) == [], str(os.listdir(d)))
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http", "--timeout", "0")
expect("--timeout 0", r, 2)
f.stop()
f = fake(auth="basic")
f.add_artifact("v1", MODEL_BYTES)
cfg = fresh_dir("fifo_cfg")
os.mkfifo(cfg + "/config.json")
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", cfg + "/m.onnx", "--plain-http", env={"DOCKER_CONFIG": cfg},
         timeout=10)
expect("a FIFO docker config does not hang", r, 3)
check("warns it is not a regular file", b"not a regular file" in r[2], r[2].decode()[-300:])
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", cfg + "/m.onnx", "--ca-file", cfg + "/config.json", timeout=10)
expect("a FIFO --ca-file does not hang", r, 2)
f.stop()

# --- 6. all or nothing: a failed pull changes no file beside -o ----------------------------------
for bad in ("model", "data"):
    f = fake()
    if bad == "model":
        f.add_artifact("v1", MODEL_BYTES, DATA_BYTES, model_digest=fake_registry.digest_of(b"other bytes"))
    else:
        f.add_artifact("v1", MODEL_BYTES, DATA_BYTES, data_size=len(DATA_BYTES) + 1)
    d = fresh_dir("mismatch_" + bad)
    for name, text in (("m.onnx", b"OLD MODEL"), ("m.onnx.data", b"OLD DATA")):
        with open(os.path.join(d, name), "wb") as out:
            out.write(text)
    r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http")
    expect("pull whose %s layer does not match" % bad, r, 3)
    check("the model beside -o is untouched (%s)" % bad, read(d + "/m.onnx") == b"OLD MODEL")
    check("the external data beside -o is untouched (%s)" % bad,
          read(d + "/m.onnx.data") == b"OLD DATA")
    check("no other file (%s)" % bad, sorted(os.listdir(d)) == ["m.onnx", "m.onnx.data"], str(os.listdir(d)))
    f.stop()
f = fake()
f.add_artifact("v1", MODEL_BYTES, DATA_BYTES)
d = fresh_dir("replace")
for name in ("m.onnx", "m.onnx.data"):
    with open(os.path.join(d, name), "wb") as out:
        out.write(b"OLD")
r = nnfx("pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http")
expect("a good pull over existing files", r, 0)
check("both files replaced", read(d + "/m.onnx") == MODEL_BYTES and
      read(d + "/m.onnx.data") == DATA_BYTES)
check("no other file (replace)", sorted(os.listdir(d)) == ["m.onnx", "m.onnx.data"], str(os.listdir(d)))
f.stop()

# SIGTERM (and SIGINT) during a pull: no temporary left
for sig in (signal.SIGTERM, signal.SIGINT):
    f = fake(blob_mode="stall")
    f.add_artifact("v1", MODEL_BYTES, DATA_BYTES)
    d = fresh_dir("signal_%d" % sig)
    p = subprocess.Popen([NNFX, "pull", "127.0.0.1:%d/m:v1" % f.port, "-o", d + "/m.onnx", "--plain-http"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t = time.monotonic()
    while not os.listdir(d) and time.monotonic() - t < 10:
        time.sleep(0.02)
    seen = os.listdir(d)
    time.sleep(0.3)  # the stalled blob is half written
    p.send_signal(sig)
    try:
        code = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        code = "hung"
    check("a temporary was being written (signal %d)" % sig, len(seen) == 1, str(seen))
    check("killed by signal %d" % sig, code == -sig, str(code))
    check("no temporary left after signal %d" % sig, os.listdir(d) == [], str(os.listdir(d)))
    f.stop()

print("hostile_registry: %d passed, %d failed" % (passed, len(failed)))
sys.exit(1 if failed else 0)
