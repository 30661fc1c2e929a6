#!/usr/bin/python3
"""Exports torchvision models (random weights, seeded; nothing downloaded;
eval mode, BatchNorm folded by the exporter) for the slow pruning test.
BatchNorm statistics are first measured on random images (a few batches in
train mode) so that activations keep their scale through the network and
the outputs are not a constant (random init with fresh statistics fades to
~1e-12 in mobilenet and efficientnet, ReLUs die in googlenet):

    /usr/bin/python3 tests/prune/export_torchvision.py OUT_DIR [NAME ...]

OUT_DIR/NAME.onnx (opset 13, input [1, 3, 224, 224]) and OUT_DIR/input.npy.
Exit status 77 (a CTest skip) when torch, torchvision or onnx is missing.
"""
import os
import sys

MODELS = ["resnet18", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "densenet121", "googlenet",
          "regnet_y_400mf", "shufflenet_v2_x1_0", "squeezenet1_1", "mnasnet1_0"]


def main():
    try:
        import numpy as np
        import torch
        import torchvision
    except ImportError as e:
        print("skip: %s" % e)
        sys.exit(77)
    out = sys.argv[1]
    names = sys.argv[2:] or MODELS
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "input.npy"), np.random.RandomState(0).rand(1, 3, 224, 224).astype(np.float32))
    for name in names:
        path = os.path.join(out, name + ".onnx")
        if os.path.exists(path):
            continue
        torch.manual_seed(0)
        kw = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
        model = getattr(torchvision.models, name)(weights=None, **kw)
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.reset_running_stats()
                m.momentum = None  # cumulative average over the calibration batches
        model.train()
        with torch.no_grad():
            for k in range(2):
                model(torch.from_numpy(np.random.RandomState(k + 1).rand(8, 3, 224, 224).astype(np.float32)))
        model.eval()
        torch.onnx.export(model, torch.zeros(1, 3, 224, 224), path + ".tmp", opset_version=13,
                          input_names=["input"], output_names=["output"], do_constant_folding=True)
        os.replace(path + ".tmp", path)
        print("exported", path, flush=True)


if __name__ == "__main__":
    main()
