#!/usr/bin/env python3
"""Writes the seeds of fuzz_weights (corpus_weights/) and fuzz_json
(corpus_json/): values files for the fixed text IR in fuzz_weights.c, and
the JSON a registry client reads. Standard library only."""
import json
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def safetensors(entries):
    """entries: (name, dtype, shape, raw bytes) -> the file's bytes."""
    header, blob = {}, b""
    for name, dt, shape, raw in entries:
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [len(blob), len(blob) + len(raw)]}
        blob += raw
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + blob


def main():
    w = os.path.join(here, "corpus_weights")
    os.makedirs(w, exist_ok=True)
    good = [
        ("w", "F32", [2, 3], struct.pack("<6f", 1, -2, 3.5, 0, 1e-3, -7)),
        ("idx", "I64", [4], struct.pack("<4q", 0, 1, -1, 2**40)),
        ("s", "F32", [], struct.pack("<f", 0.25)),
        ("h", "F16", [1, 2], struct.pack("<2H", 0x3C00, 0xC000)),
        ("b", "BOOL", [3], bytes([1, 0, 1])),
        ("e", "U8", [0], b""),
    ]
    with open(os.path.join(w, "good.safetensors"), "wb") as f:
        f.write(safetensors(good))
    # wrong dtype, wrong rank, offsets past the end, header length past the end
    bad = list(good)
    bad[0] = ("w", "F64", [2, 3], b"\0" * 48)
    with open(os.path.join(w, "wrong_dtype.safetensors"), "wb") as f:
        f.write(safetensors(bad))
    data = bytearray(safetensors(good))
    with open(os.path.join(w, "truncated.safetensors"), "wb") as f:
        f.write(bytes(data[:-5]))
    # found by fuzz_weights: a dim of 1e30 (a double cast to int64 was undefined)
    with open(os.path.join(w, "regress_shape_1e30.safetensors"), "wb") as f:
        f.write(safetensors([("w", "F32", [1e30, 3], b"\0" * 24)]))
    with open(os.path.join(w, "header_too_long.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", 1 << 40) + b"{}")

    j = os.path.join(here, "corpus_json")
    os.makedirs(j, exist_ok=True)
    seeds = {
        "manifest.json": {
            "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "artifactType": "application/vnd.nnfx.model.v1",
            "config": {"mediaType": "application/vnd.nnfx.model.config.v1+json", "digest": "sha256:" + "a" * 64,
                       "size": 2},
            "layers": [{"mediaType": "application/vnd.onnx.model", "digest": "sha256:" + "b" * 64, "size": 1234,
                        "annotations": {"org.opencontainers.image.title": "digits.onnx"}}],
            "annotations": {"nnfx.version": "0.1.0"}},
        "token.json": {"token": "abc.def", "access_token": "abc.def", "expires_in": 300},
        "errors.json": {"errors": [{"code": "MANIFEST_UNKNOWN", "message": "manifest unknown", "detail": None}]},
        "docker_config.json": {"auths": {"localhost:5000": {"auth": "dXNlcjpwYXNz"},
                                         "https://ghcr.io": {"auth": "Zm9vOmJhcg=="}}},
    }
    for name, obj in seeds.items():
        with open(os.path.join(j, name), "w") as f:
            json.dump(obj, f)
    with open(os.path.join(j, "escapes.json"), "w") as f:
        f.write('["\\u00e9\\ud83d\\ude00\\n\\t\\"", -1.5e-3, true, false, null, {"": []}]')
    with open(os.path.join(j, "reference.txt"), "w") as f:
        f.write("localhost:5000/models/digits@sha256:" + "c" * 64)

    # fuzz_registry: a header line (challenge, Location), then a manifest
    r = os.path.join(here, "corpus_registry")
    os.makedirs(r, exist_ok=True)
    manifest = json.dumps(seeds["manifest.json"])
    data_layer = {"mediaType": "application/vnd.onnx.model.external-data", "digest": "sha256:" + "d" * 64,
                  "size": 10, "annotations": {"org.opencontainers.image.title": "digits.onnx.data"}}
    with_data = dict(seeds["manifest.json"], layers=seeds["manifest.json"]["layers"] + [data_layer])
    lines = {
        "bearer.txt": 'Bearer realm="https://auth.example/token",service="registry.example",'
                      'scope="repository:team/digits:pull"\n' + manifest,
        "basic.txt": 'Basic realm="registry"\n' + json.dumps(with_data),
        "quoted.txt": 'Bearer realm = "a\\"b" , service=svc, error="insufficient_scope"\n{"layers": []}',
        "location_rel.txt": "/v2/fuzz/model/blobs/uploads/abc?_state=xyz\n" + manifest,
        "location_other.txt": "http://localhost:5000/v2/x\n"
                              '{"layers": [{"mediaType": "application/vnd.onnx.model", "digest": "sha256:'
                              + "e" * 64 + '", "size": 1e999}]}',
        "location_userinfo.txt": "http://ci:s3cret-pw@127.0.0.1:5000/\x1b[2J\n{}",
    }
    for name, text in lines.items():
        with open(os.path.join(r, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
