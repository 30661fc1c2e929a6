#!/usr/bin/env bash
# nnfx push --format modelpack: the CNCF ModelPack layout (model-spec v1)
# against Debian's docker-registry on 127.0.0.1: the manifest's artifactType,
# config and layer media types, org.cncf.model.filepath, the config's
# diffIds; `nnfx pull` brings the model and its external data back
# byte-identical; the default layout still pulls. Skips (77) without
# docker-registry, curl or python3-onnx.
# usage: test_modelpack.sh NNFX SOURCE_DIR TMP
set -u
NNFX=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
TMP=$3
PY=/usr/bin/python3
REGISTRY_BIN=${REGISTRY_BIN:-$(command -v docker-registry || echo /usr/bin/docker-registry)}
[ -x "$REGISTRY_BIN" ] || { echo "SKIP: docker-registry is not installed"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: curl is not installed"; exit 77; }
$PY -c 'import onnx' 2>/dev/null || { echo "SKIP: needs python3-onnx"; exit 77; }
rm -rf "$TMP" && mkdir -p "$TMP" && TMP=$(cd "$TMP" && pwd)
. "$SRC/tests/lib/check.sh"
cd "$TMP" || exit 1
PORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p reg
printf 'version: 0.1\nlog: {level: error}\nstorage: {filesystem: {rootdirectory: %s/reg}}\nhttp: {addr: 127.0.0.1:%s}\n' \
    "$TMP" "$PORT" >reg.yml
"$REGISTRY_BIN" serve reg.yml >reg.log 2>&1 &
REG_PID=$!
trap 'kill $REG_PID 2>/dev/null; wait $REG_PID 2>/dev/null' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/v2/" && break; sleep 0.1; done
R=127.0.0.1:$PORT

$PY "$SRC/tests/fleet/make_fleet.py" fleet 3 >/dev/null
expect 0 "a model with external data" -- "$NNFX" export fleet/team1/m001.onnx -o m.onnx --external-data
check "the external data exists" test -s m.onnx.data
expect 0 "push --format modelpack" -- "$NNFX" push m.onnx "$R/fleet/m:mp" --format modelpack --plain-http
check "prints the digest" grep -q "^$R/fleet/m@sha256:" "$TMP/out"
curl -s -H 'Accept: application/vnd.oci.image.manifest.v1+json' "http://$R/v2/fleet/m/manifests/mp" >manifest.json
check "the ModelPack manifest" $PY - "$R" <<'PY'
import hashlib, json, sys, urllib.request
m = json.load(open("manifest.json"))
assert m["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
assert m["artifactType"] == "application/vnd.cncf.model.manifest.v1+json", m["artifactType"]
assert m["config"]["mediaType"] == "application/vnd.cncf.model.config.v1+json"
paths = [l["annotations"]["org.cncf.model.filepath"] for l in m["layers"]]
assert paths == ["m.onnx", "m.onnx.data"], paths
for l, f in zip(m["layers"], paths):
    assert l["mediaType"] == "application/vnd.cncf.model.weight.v1.raw"
    data = open(f, "rb").read()
    assert l["digest"] == "sha256:" + hashlib.sha256(data).hexdigest() and l["size"] == len(data)
cfg = json.load(urllib.request.urlopen(f"http://{sys.argv[1]}/v2/fleet/m/blobs/{m['config']['digest']}"))
assert cfg["modelfs"] == {"type": "layers", "diffIds": [l["digest"] for l in m["layers"]]}, cfg
assert cfg["config"]["format"] == "onnx" and cfg["descriptor"]["name"] == "m"
PY
mkdir -p back
expect 0 "pull of the ModelPack layout" -- "$NNFX" pull "$R/fleet/m:mp" -o back/m.onnx --plain-http
check "the model comes back byte-identical" cmp m.onnx back/m.onnx
check "its external data too" cmp m.onnx.data back/m.onnx.data
expect 0 "the pulled model runs" -- "$NNFX" compare m.onnx back/m.onnx --random 2 -q
# a ModelPack manifest from another tool: layers named only by org.cncf.model.filepath
$PY - "$R" <<'PY'
import hashlib, json, sys, urllib.request
r = sys.argv[1]
m = json.load(open("manifest.json"))
for l in m["layers"]:
    del l["annotations"]["org.opencontainers.image.title"]
body = json.dumps(m).encode()
req = urllib.request.Request(f"http://{r}/v2/fleet/m/manifests/filepath-only", data=body, method="PUT",
                             headers={"Content-Type": m["mediaType"]})
urllib.request.urlopen(req)
PY
mkdir -p back2
expect 0 "pull of a manifest with file paths only" -- "$NNFX" pull "$R/fleet/m:filepath-only" -o back2/m.onnx --plain-http
check "model and data byte-identical" sh -c 'cmp m.onnx back2/m.onnx && cmp m.onnx.data back2/m.onnx.data'
expect 0 "the default layout still pushes" -- "$NNFX" push m.onnx "$R/fleet/m:nnfx" --plain-http
mkdir -p back3
expect 0 "and pulls" -- "$NNFX" pull "$R/fleet/m:nnfx" -o back3/m.onnx --plain-http
check "byte-identical" sh -c 'cmp m.onnx back3/m.onnx && cmp m.onnx.data back3/m.onnx.data'
expect 2 "an unknown --format" -- "$NNFX" push m.onnx "$R/fleet/m:x" --format docker --plain-http
check_summary modelpack
