#!/usr/bin/python3
"""Exports the benchmark models (torchvision, random init, eval mode) to ONNX.

Usage: export_models.py OUTDIR [BATCH ...]
       MODELS="resnet18 resnet50" export_models.py OUTDIR 1   (other torchvision models)
Writes OUTDIR/<model>_b<BATCH>.onnx and an input OUTDIR/input_b<BATCH>.npy
(one fixed random image batch shared by every engine).
"""
import os
import sys

import numpy as np
import torch
import torchvision

MODELS = os.environ.get("MODELS", "resnet18 mobilenet_v2 efficientnet_b0 squeezenet1_1").split()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "bench/models"
    batches = [int(b) for b in sys.argv[2:]] or [1, 8]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for b in batches:
        x = torch.from_numpy(np.random.RandomState(b).rand(b, 3, 224, 224).astype(np.float32))
        np.save(os.path.join(out, "input_b%d.npy" % b), x.numpy())
    for name in MODELS:
        model = getattr(torchvision.models, name)(weights=None).eval()
        for b in batches:
            path = os.path.join(out, "%s_b%d.onnx" % (name, b))
            if os.path.exists(path):
                continue
            x = torch.zeros(b, 3, 224, 224)
            torch.onnx.export(model, x, path, opset_version=13, input_names=["input"],
                              output_names=["output"], do_constant_folding=True)
            # the weights this export used, for the PyTorch side of the benchmark
            torch.save(model.state_dict(), os.path.join(out, "%s.pt" % name))
            print("exported", path, flush=True)


if __name__ == "__main__":
    main()
