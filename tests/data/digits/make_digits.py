#!/usr/bin/python3
"""Makes the digits test data: a small real labelled dataset and two models
trained on it, with PyTorch's answers as the reference.

Run with Debian's python3 (python3-sklearn, python3-torch, python3-onnx,
python3-numpy):

    /usr/bin/python3 tests/data/digits/make_digits.py

The UCI hand-written digits (1797 images of 8x8 pixels, values 0..16, ten
classes) ship inside scikit-learn, so nothing is downloaded. See README.md in
this folder for the dataset's origin and licence.

Writes, next to this script:
  digits_test_x.npy      float32 N x 1 x 8 x 8, the test split scaled to [0, 1]
  digits_test_y.npy      int64 N, its labels
  digits_cnn.onnx        Conv->BatchNorm->ReLU x2 -> MaxPool -> Gemm (BatchNorm kept)
  digits_mlp.onnx        Gemm -> ReLU -> Gemm
  digits_cnn_logits.npy  PyTorch's logits of each model on the test split
  digits_mlp_logits.npy  (float32 N x 10)
  digits_ref.json        split sizes, seeds, each model's top-1 accuracy, and
                         its accuracy with every ReLU replaced by another
                         activation (sigmoid, leaky_relu, identity)

Everything is seeded and runs on one thread, so a rerun gives the same
files (up to the bytes of the ONNX producer version)."""
import copy
import json
import os

import numpy as np
import onnx
import torch
import torch.nn as nn
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

HERE = os.path.dirname(os.path.abspath(__file__))
SPLIT_SEED = 0      # train/test split
TORCH_SEED = 1      # weights and batch order
TEST_FRACTION = 0.25
EPOCHS = 30
OPSET = 13


class DigitsCNN(nn.Module):
    """Two Conv->BatchNorm->ReLU blocks (so fuse-conv-bn has work), a max
    pool and a linear classifier: 1x8x8 -> 10 logits."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.relu2 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = self.relu1(self.bn1(self.conv1(x)))
        x = self.pool(self.relu2(self.bn2(self.conv2(x))))
        return self.fc(torch.flatten(x, 1))


class DigitsMLP(nn.Module):
    """64 pixels -> 64 hidden (ReLU) -> 10 logits."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 64)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(torch.flatten(x, 1))))


def load_split():
    d = load_digits()
    x = (d.images.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)
    y = d.target.astype(np.int64)
    return train_test_split(x, y, test_size=TEST_FRACTION, random_state=SPLIT_SEED, stratify=y)


def train(net, x, y):
    """Adam on mini-batches of 32, in a seeded order."""
    g = torch.Generator().manual_seed(TORCH_SEED)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    net.train()
    for _ in range(EPOCHS):
        perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 32):
            idx = perm[i:i + 32]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    net.eval()


def export(net, path):
    # TrainingMode.PRESERVE on a module in eval mode writes inference-mode
    # BatchNormalization nodes; the default (EVAL) would fold them into the
    # convolutions, leaving fuse-conv-bn nothing to do.
    torch.onnx.export(net, torch.zeros(1, 1, 8, 8), path, opset_version=OPSET,
                      input_names=["x"], output_names=["logits"],
                      dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}},
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    return m


def main():
    torch.manual_seed(TORCH_SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    x_train, x_test, y_train, y_test = load_split()
    np.save(os.path.join(HERE, "digits_test_x.npy"), x_test)
    np.save(os.path.join(HERE, "digits_test_y.npy"), y_test)

    ref = {"dataset": "UCI ML hand-written digits (sklearn.datasets.load_digits)",
           "split_seed": SPLIT_SEED, "torch_seed": TORCH_SEED, "test_fraction": TEST_FRACTION,
           "n_train": int(len(y_train)), "n_test": int(len(y_test)), "opset": OPSET, "models": {}}
    for name, cls in (("cnn", DigitsCNN), ("mlp", DigitsMLP)):
        torch.manual_seed(TORCH_SEED)
        net = cls()
        train(net, x_train, y_train)
        m = export(net, os.path.join(HERE, "digits_%s.onnx" % name))
        with torch.no_grad():
            logits = net(torch.from_numpy(x_test)).numpy().astype(np.float32)
        np.save(os.path.join(HERE, "digits_%s_logits.npy" % name), logits)
        acc = float((logits.argmax(1) == y_test).mean() * 100.0)
        ops = {}
        for n in m.graph.node:
            ops[n.op_type] = ops.get(n.op_type, 0) + 1
        ref["models"][name] = {"onnx": "digits_%s.onnx" % name, "logits": "digits_%s_logits.npy" % name,
                               "top1_percent": round(acc, 4), "correct": int((logits.argmax(1) == y_test).sum()),
                               "ops": ops}
        print("%s: top-1 %.2f %% on %d test images, ops %s" % (name, acc, len(y_test), ops))
        if name == "cnn":
            assert ops.get("BatchNormalization") == 2, "export folded the BatchNorms: %s" % ops
        # PyTorch's accuracy with every ReLU swapped for another activation:
        # the reference for the figures that the accuracy gate prints for the
        # same rewrites (tests/digits/test_digits.sh)
        variants = {}
        for key, act in (("sigmoid", nn.Sigmoid), ("leaky_relu_0.1", lambda: nn.LeakyReLU(0.1)),
                         ("leaky_relu_0.5", lambda: nn.LeakyReLU(0.5)), ("identity", nn.Identity)):
            v = copy.deepcopy(net)
            for mod_name, mod in list(v.named_modules()):
                if isinstance(mod, nn.ReLU):
                    setattr(v, mod_name, act())
            with torch.no_grad():
                pred = v(torch.from_numpy(x_test)).argmax(1).numpy()
            variants[key] = {"correct": int((pred == y_test).sum()),
                             "top1_percent": round(float((pred == y_test).mean() * 100.0), 4)}
        ref["models"][name]["relu_replaced_by"] = variants
    with open(os.path.join(HERE, "digits_ref.json"), "w") as f:
        json.dump(ref, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
