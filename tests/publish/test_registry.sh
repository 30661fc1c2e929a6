#!/usr/bin/env bash
# nnfx push / pull against a real OCI registry: Debian's docker-registry on
# 127.0.0.1 (started and stopped here), without and with htpasswd auth, plus a
# small stand-in (fake_registry.py) for a Bearer token service and for an
# upload the server breaks off. Pushes the optimised digits model, reads the
# manifest and blobs back with curl, pulls with nnfx and compares bytes.
# Skips (77) when docker-registry is not installed.
# usage: test_registry.sh NNFX SOURCE_DIR TMP
set -u
NNFX=$1 SRC=$2 TMP=$3
REGISTRY_BIN=${REGISTRY_BIN:-$(command -v docker-registry || echo /usr/bin/docker-registry)}
if [ ! -x "$REGISTRY_BIN" ]; then
    echo "SKIP: docker-registry is not installed (apt-get install docker-registry)"
    exit 77
fi
for tool in curl python3 htpasswd; do
    command -v $tool >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
rm -rf "$TMP"
mkdir -p "$TMP"
. "$SRC/tests/lib/check.sh"
D=$SRC/tests/data/digits
PY=/usr/bin/python3
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# start_registry NAME [htpasswd]: starts docker-registry, sets PORT, waits until it answers
start_registry() {
    local name=$1 auth=${2:-}
    PORT=$(free_port)
    mkdir -p "$TMP/$name/data"
    {
        echo "version: 0.1"
        echo "log: {level: error}"
        echo "storage: {filesystem: {rootdirectory: $TMP/$name/data}}"
        echo "http: {addr: 127.0.0.1:$PORT}"
        [ -z "$auth" ] || echo "auth: {htpasswd: {realm: nnfx-test, path: $auth}}"
    } >"$TMP/$name/config.yml"
    "$REGISTRY_BIN" serve "$TMP/$name/config.yml" >"$TMP/$name/log" 2>&1 &
    REG_PID=$!
    pids+=("$REG_PID")
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:$PORT/v2/" && return 0
        sleep 0.1
    done
    echo "FAIL: docker-registry did not start"; cat "$TMP/$name/log"; exit 1
}
stop_registry() { kill "$REG_PID" 2>/dev/null; wait "$REG_PID" 2>/dev/null; }
MT='Accept: application/vnd.oci.image.manifest.v1+json'
layer() { $PY -c "import json,sys; m=json.load(open(sys.argv[1])); print($2)" "$TMP/manifest.json"; }

# the model to publish: the digits CNN, optimised and checked
expect 0 "optimise the digits model" -- "$NNFX" optimize "$D/digits_cnn.onnx" -o "$TMP/digits_opt.onnx" -q \
    --pass fuse-conv-bn --pass dce --validate --input "$D/digits_test_x.npy" --labels "$D/digits_test_y.npy" \
    --max-accuracy-drop 0.5
M=$TMP/digits_opt.onnx

# --- no auth -------------------------------------------------------------------------------
start_registry open
R=127.0.0.1:$PORT
expect 0 "push" -- "$NNFX" push "$M" "$R/models/digits:v1" --plain-http --annotation org.example.stage=ci
check "push prints the digest" grep -q "^$R/models/digits@sha256:[0-9a-f]\{64\}$" "$TMP/out"
mdigest=$(sed 's/.*@//' "$TMP/out")
curl -sf -H "$MT" "http://$R/v2/models/digits/manifests/v1" -o "$TMP/manifest.json"
check "curl reads the manifest" test -s "$TMP/manifest.json"
check "the manifest's digest is the one printed" test "sha256:$(sha256sum <"$TMP/manifest.json" | cut -c1-64)" = "$mdigest"
check "artifactType" test "$(layer x "m['artifactType']")" = application/vnd.nnfx.model.v1
check "model layer media type" test "$(layer x "m['layers'][0]['mediaType']")" = application/vnd.onnx.model
check "model layer title" test "$(layer x "m['layers'][0]['annotations']['org.opencontainers.image.title']")" = digits_opt.onnx
check "annotation" test "$(layer x "m['annotations']['org.example.stage']")" = ci
blob=$(layer x "m['layers'][0]['digest']")
curl -sf "http://$R/v2/models/digits/blobs/$blob" -o "$TMP/blob.onnx"
check "curl reads the model blob: the exact bytes" cmp -s "$TMP/blob.onnx" "$M"
cfg=$(layer x "m['config']['digest']")
curl -sf "http://$R/v2/models/digits/blobs/$cfg" -o "$TMP/config.json"
check "config: provenance and analysis" $PY -c "
import json,sys,hashlib
c=json.load(open('$TMP/config.json'))
src=hashlib.sha256(open('$D/digits_cnn.onnx','rb').read()).hexdigest()
assert c['provenance']['nnfx.source_sha256']==src, c['provenance']
assert c['provenance']['nnfx.steps'][0]['pass']=='fuse-conv-bn'
assert c['provenance']['nnfx.validation']['accuracy']['samples']==450
assert c['analysis']['nodes']==7 and 'foldable_batch_norm' not in c['analysis']['findings']
assert c['model']['size']==len(open('$M','rb').read())"
expect 0 "pull" -- "$NNFX" pull "$R/models/digits:v1" -o "$TMP/pulled.onnx" --plain-http
check "pulled bytes equal" cmp -s "$TMP/pulled.onnx" "$M"
expect 0 "pull by digest" -- "$NNFX" pull "$R/models/digits@$mdigest" -o "$TMP/pulled2.onnx" --plain-http
check "pulled-by-digest bytes equal" cmp -s "$TMP/pulled2.onnx" "$M"
expect 0 "chunked push (PATCH with Content-Range)" -- "$NNFX" push "$M" "$R/models/chunked:v1" --plain-http \
    --chunk-size 4096 -v
check "several PATCH requests" test "$(grep -c '^nnfx: PATCH .* -> 202' "$TMP/err")" -ge 4
expect 0 "pull the chunked push" -- "$NNFX" pull "$R/models/chunked:v1" -o "$TMP/pulled3.onnx" --plain-http
check "chunked bytes equal" cmp -s "$TMP/pulled3.onnx" "$M"
# external data: a second layer, restored beside the model
mkdir -p "$TMP/ext" "$TMP/ext_pulled"
expect 0 "export with external data" -- "$NNFX" export "$M" -o "$TMP/ext/digits_ext.onnx" --external-data
expect 0 "push with external data" -- "$NNFX" push "$TMP/ext/digits_ext.onnx" "$R/models/ext:v1" --plain-http
expect 0 "pull with external data" -- "$NNFX" pull "$R/models/ext:v1" -o "$TMP/ext_pulled/digits_ext.onnx" --plain-http
check "model bytes equal" cmp -s "$TMP/ext/digits_ext.onnx" "$TMP/ext_pulled/digits_ext.onnx"
check "external data bytes equal" cmp -s "$TMP/ext/digits_ext.onnx.data" "$TMP/ext_pulled/digits_ext.onnx.data"
expect 0 "the pulled model runs like the original" -- "$NNFX" compare "$TMP/ext_pulled/digits_ext.onnx" "$M" --random 2
# failures
# the pipeline's push step
expect 0 "examples/pipeline.sh --push" -- bash "$SRC/examples/pipeline.sh" -o "$TMP/pipe" --nnfx "$NNFX" \
    --push "$R/models/pipeline:v1" --plain-http
check "the pipeline pushed (step 5)" grep -q "^== step 5: push" "$TMP/out"
expect 0 "pull what the pipeline pushed" -- "$NNFX" pull "$R/models/pipeline:v1" -o "$TMP/pipe_pulled.onnx" --plain-http
check "pipeline's model bytes equal" cmp -s "$TMP/pipe_pulled.onnx" "$TMP/pipe/model.onnx"
expect 3 "pull of an absent tag" -- "$NNFX" pull "$R/models/digits:nope" -o "$TMP/none.onnx" --plain-http
check "says not found" grep -q "not found (HTTP 404)" "$TMP/err"
check "nothing written" test ! -e "$TMP/none.onnx"
expect 3 "TLS by default: a plain registry is refused" -- "$NNFX" push "$M" "$R/models/digits:v1"
check "with a hint" grep -q "needs --plain-http" "$TMP/err"
# a blob altered in the registry's storage is caught by its digest
f=$(find "$TMP/open/data" -path "*${blob#sha256:}*" -name data | head -1)
chmod u+w "$f" && printf 'X' | dd of="$f" bs=1 seek=100 conv=notrunc 2>/dev/null
expect 3 "pull of an altered blob" -- "$NNFX" pull "$R/models/digits:v1" -o "$TMP/altered.onnx" --plain-http
check "says the digest does not match" grep -q "hash to sha256:.*(corrupt or altered)" "$TMP/err"
check "the altered file is not left" test ! -e "$TMP/altered.onnx"
# an altered external-data blob: the pull fails and leaves no model at -o
dd_hex=$(sha256sum <"$TMP/ext/digits_ext.onnx.data" | cut -c1-64)
f=$(find "$TMP/open/data" -path "*$dd_hex*" -name data | head -1)
chmod u+w "$f" && printf 'X' | dd of="$f" bs=1 seek=10 conv=notrunc 2>/dev/null
mkdir -p "$TMP/ext_altered"
expect 3 "pull with altered external data" -- "$NNFX" pull "$R/models/ext:v1" -o "$TMP/ext_altered/m.onnx" --plain-http
check "no model file left at -o" test ! -e "$TMP/ext_altered/m.onnx"
check "no external data left either" test ! -e "$TMP/ext_altered/digits_ext.onnx.data"
stop_registry
expect 3 "absent registry (closed port)" -- "$NNFX" push "$M" "$R/models/digits:v1" --plain-http
check "says it could not connect" grep -q "Couldn't connect to server" "$TMP/err"
expect 2 "a reference without a registry" -- "$NNFX" push "$M" models/digits:v1
expect 2 "--username without --password-stdin" -- "$NNFX" push "$M" "$R/m:v1" --username ci

# --- htpasswd (Basic) -----------------------------------------------------------------------------
htpasswd -Bbn ci 's3cret-pw' >"$TMP/htpasswd"
start_registry auth "$TMP/htpasswd"
R=127.0.0.1:$PORT
expect 3 "push without a login" -- "$NNFX" push "$M" "$R/models/digits:v1" --plain-http
check "says a login is needed" grep -q "asks for a login" "$TMP/err"
echo wrong-pw >"$TMP/badpw"
expect 3 "refused login" -- "$NNFX" push "$M" "$R/models/digits:v1" --plain-http --username ci --password-stdin \
    <"$TMP/badpw"
check "says the login was refused" grep -q "refused the login" "$TMP/err"
check "the password is not printed" bash -c "! grep -q wrong-pw '$TMP/err' '$TMP/out'"
echo 's3cret-pw' >"$TMP/pw"
expect 0 "push with --username/--password-stdin" -- "$NNFX" push "$M" "$R/models/digits:v1" --plain-http -v \
    --username ci --password-stdin <"$TMP/pw"
check "the password is not printed (verbose)" bash -c "! grep -q s3cret '$TMP/err' '$TMP/out'"
mkdir -p "$TMP/dockercfg"
printf '{"auths": {"%s": {"auth": "%s"}}}\n' "$R" "$(printf 'ci:s3cret-pw' | base64)" >"$TMP/dockercfg/config.json"
expect 0 "pull with ~/.docker/config.json credentials" -- env DOCKER_CONFIG="$TMP/dockercfg" \
    "$NNFX" pull "$R/models/digits:v1" -o "$TMP/pulled_auth.onnx" --plain-http
check "pulled bytes equal (auth)" cmp -s "$TMP/pulled_auth.onnx" "$M"
stop_registry

# --- Bearer tokens and a broken-off upload (stand-in server) --------------------------------------
start_fake() {
    rm -f "$TMP/fake.port"
    $PY "$SRC/tests/publish/fake_registry.py" "$TMP/fake.port" "$1" &
    pids+=("$!")
    FAKE_PID=$!
    for _ in $(seq 100); do [ -s "$TMP/fake.port" ] && break; sleep 0.1; done
    R=127.0.0.1:$(cat "$TMP/fake.port")
}
start_fake bearer
echo s3cret >"$TMP/pw2"
expect 0 "push with a Bearer token" -- "$NNFX" push "$M" "$R/m:v1" --plain-http -v --username ci --password-stdin \
    <"$TMP/pw2"
check "a token was fetched" grep -q "^nnfx: GET http://$R/token?service=fake&scope=repository%3Am%3Apull%2Cpush -> 200" "$TMP/err"
check "the token is not printed" bash -c "! grep -q 'tok-' '$TMP/err' '$TMP/out'"
expect 0 "pull with a Bearer token" -- "$NNFX" pull "$R/m:v1" -o "$TMP/pulled_bearer.onnx" --plain-http \
    --username ci --password-stdin <"$TMP/pw2"
check "pulled bytes equal (bearer)" cmp -s "$TMP/pulled_bearer.onnx" "$M"
expect 3 "token endpoint refuses bad credentials" -- "$NNFX" pull "$R/m:v1" -o "$TMP/x.onnx" --plain-http \
    --username ci --password-stdin <"$TMP/badpw"
check "says so" grep -q "token endpoint refused the credentials" "$TMP/err"
kill "$FAKE_PID"
start_fake drop
expect 3 "an upload broken off (one PUT)" -- "$NNFX" push "$M" "$R/m:v1" --plain-http
check "says the upload was interrupted" grep -q "the upload was interrupted" "$TMP/err"
expect 3 "an upload broken off (chunks)" -- "$NNFX" push "$M" "$R/m:v1" --plain-http --chunk-size 4096
check "says the upload was interrupted (PATCH)" grep -q "PATCH .*the upload was interrupted" "$TMP/err"
check_summary registry
