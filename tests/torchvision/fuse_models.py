#!/usr/bin/python3
"""Exports torchvision resnet18, mobilenet_v2 and efficientnet_b0 with
BatchNormalization kept (as export_models.py does) together with a seeded
input and PyTorch's output on it, for check_fuse.sh:

    /usr/bin/python3 tests/torchvision/fuse_models.py OUT_DIR

OUT_DIR/NAME.onnx, OUT_DIR/NAME_input.npy (1x3x224x224 float32),
OUT_DIR/NAME_ref.npy (PyTorch eager logits).
Exit status 77 (a CTest skip) when torch, torchvision or onnx is missing.
"""
import os
import sys

MODELS = ["resnet18", "mobilenet_v2", "efficientnet_b0"]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        import numpy as np
        import torch
        import torchvision  # noqa: F401
        import onnx  # noqa: F401
    except ImportError as e:
        print("skip: %s (Debian: apt-get install python3-torchvision python3-onnx)" % e)
        return 77
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from export_models import build_net, export_bn_kept
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for name in MODELS:
        net = build_net(name)
        x = torch.rand(1, 3, 224, 224, generator=torch.Generator().manual_seed(7))
        with torch.no_grad():
            ref = net(x).numpy()
        export_bn_kept(net, x, os.path.join(out, name + ".onnx"))
        np.save(os.path.join(out, name + "_input.npy"), x.numpy())
        np.save(os.path.join(out, name + "_ref.npy"), ref)
        print("%s: exported, reference logits range %.3g..%.3g" % (name, ref.min(), ref.max()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
