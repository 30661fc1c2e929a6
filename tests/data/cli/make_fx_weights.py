#!/usr/bin/python3
"""Writes the parameter values of the text-IR fixtures here (waste.fx,
bn_via_identity.fx) to FILE.fx.safetensors, which nnfx reads beside a text IR
(a text IR without them has shapes but no values and cannot be run).
Seeded normal values (scale 0.5); running variances are positive.
usage: make_fx_weights.py  (in tests/data/cli)"""
import json
import re
import struct

import numpy as np

for fx in ("waste.fx", "bn_via_identity.fx"):
    rng = np.random.default_rng(sum(map(ord, fx)))
    header, blobs, off = {}, [], 0
    for line in open(fx):
        m = re.match(r"\s*# param (\S+) : float32\[([0-9, ]*)\]", line)
        if not m:
            continue
        name, shape = m.group(1), [int(d) for d in m.group(2).split(",") if d.strip()]
        a = rng.normal(0.0, 0.5, size=shape).astype("<f4")
        if "var" in name:
            a = np.abs(a) + np.float32(0.5)
        b = a.tobytes()
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(fx + ".safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    print("wrote %s.safetensors (%d parameters)" % (fx, len(header)))
