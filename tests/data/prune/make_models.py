#!/usr/bin/python3
"""Makes the small pruning fixtures, one per coupling kind, with PyTorch:

    /usr/bin/python3 tests/data/prune/make_models.py tests/data/prune

Each model has, in every dependency group, exactly half of its channels
made dead on purpose: every producer of the channel (Conv/Linear rows,
biases) is zero and the BatchNorms after it map 0 to 0 (beta = mean = 0).
`nnfx prune --ratio 0.5 --criterion l1` must remove exactly those channels
and the pruned model must give PyTorch's output of the original model.

NAME.onnx          opset 13, BatchNormalization kept, input [2, 3, 8, 8]
NAME.input.npy     a random input
NAME.output.npy    PyTorch's output of the original model on it
NAME.zeroed.json   {parameter: [[axis, indices], ...]}: what the pruned
                   model's parameter must have lost (rows zeroed here along
                   axis 0, input channels of the dead channels along axis 1;
                   the rest kept, in order)
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


def bn(c):
    b = nn.BatchNorm2d(c)
    with torch.no_grad():
        b.weight.uniform_(0.5, 1.5)
        b.bias.uniform_(-0.5, 0.5)
        b.running_mean.uniform_(-0.5, 0.5)
        b.running_var.uniform_(0.5, 1.5)
    return b


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem, self.stem_bn = nn.Conv2d(3, 8, 3, padding=1, bias=False), bn(8)
        self.c1, self.b1 = nn.Conv2d(8, 8, 3, padding=1, bias=False), bn(8)
        self.c2, self.b2 = nn.Conv2d(8, 8, 3, padding=1, bias=False), bn(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = torch.relu(self.stem_bn(self.stem(x)))
        y = torch.relu(self.b1(self.c1(x)))
        x = torch.relu(self.b2(self.c2(y)) + x)
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    # (module, bn or None, rows): channels of one group made dead
    dead = [("stem", "stem_bn", [1, 3, 5, 7]), ("c2", "b2", [1, 3, 5, 7]), ("c1", "b1", [0, 2, 4, 6])]
    # (module, input channels its weight must lose along axis 1)
    fed = [("c1", [1, 3, 5, 7]), ("c2", [0, 2, 4, 6]), ("fc", [1, 3, 5, 7])]


class Concat(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 6, 3, padding=1), nn.Conv2d(3, 4, 1)
        self.c = nn.Conv2d(10, 8, 3)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):  # also Pad and Resize, which keep channels where they are
        y = torch.cat([torch.relu(self.a(x)), torch.relu(self.b(x))], 1)
        y = torch.relu(self.c(nn.functional.pad(y, (1, 1, 1, 1))))
        y = nn.functional.interpolate(y, scale_factor=2.0, mode="nearest")
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))

    dead = [("a", None, [0, 1, 2]), ("b", None, [1, 3]), ("c", None, [0, 1, 2, 3])]
    fed = [("c", [0, 1, 2, 6 + 1, 6 + 3]), ("fc", [0, 1, 2, 3])]


class Depthwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 8, 1, bias=False), bn(8)
        self.dw, self.bdw = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False), bn(8)
        self.pw, self.bpw = nn.Conv2d(8, 6, 1, bias=False), bn(6)
        self.dw2 = nn.Conv2d(6, 12, 3, padding=1, groups=6)  # channel multiplier 2
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        x = torch.relu(self.b1(self.c1(x)))
        x = torch.relu(self.bdw(self.dw(x)))
        x = torch.relu(self.bpw(self.pw(x)))
        x = nn.functional.hardswish(self.dw2(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    dead = [("c1", "b1", [2, 3, 6, 7]), ("dw", "bdw", [2, 3, 6, 7]), ("pw", "bpw", [0, 4, 5]),
            ("dw2", None, [0, 1, 8, 9, 10, 11])]
    fed = [("pw", [2, 3, 6, 7]), ("fc", [0, 1, 8, 9, 10, 11])]  # depthwise weights have one input channel


class Grouped(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 1)
        self.g = nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.c3 = nn.Conv2d(8, 6, 1)
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = torch.relu(self.g(x))
        x = torch.relu(self.c3(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    # a grouped conv's channel j goes with channel j of every other group
    dead = [("c1", None, [1, 3, 5, 7]), ("g", None, [0, 2, 4, 6]), ("c3", None, [3, 4, 5])]
    fed = [("g", [1, 3]), ("c3", [0, 2, 4, 6]), ("fc", [3, 4, 5])]  # g's axis 1 is the index within a group


class SqueezeExcite(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.se1, self.se2 = nn.Conv2d(8, 4, 1), nn.Conv2d(4, 8, 1)
        self.out = nn.Conv2d(8, 6, 1)
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        s = torch.sigmoid(self.se2(torch.relu(self.se1(nn.functional.adaptive_avg_pool2d(x, 1)))))
        x = torch.relu(self.out(x * s))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    dead = [("c1", None, [0, 1, 2, 3]), ("se2", None, [0, 1, 2, 3]), ("se1", None, [0, 1]),
            ("out", None, [3, 4, 5])]
    fed = [("se1", [0, 1, 2, 3]), ("se2", [0, 1]), ("out", [0, 1, 2, 3]), ("fc", [3, 4, 5])]


class Shuffle(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 1)
        self.branch = nn.Conv2d(4, 4, 3, padding=1)
        self.c3 = nn.Conv2d(8, 6, 1)
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x1, x2 = x.chunk(2, dim=1)
        x = torch.cat([x1, torch.relu(self.branch(x2))], 1)
        n, c, h, w = x.shape
        x = x.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous().view(n, c, h, w)  # channel shuffle
        x = torch.relu(self.c3(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    # the shuffle ties x1's channel j to the branch's channel j
    dead = [("c1", None, [1, 2, 4, 7]), ("branch", None, [1, 2]), ("c3", None, [0, 1, 2])]
    # branch reads c1's channels 4..7; after the shuffle, channel 2j + k is
    # half k's channel j, so dead j = 1, 2 are c3's inputs 2, 3, 4, 5
    fed = [("branch", [0, 3]), ("c3", [2, 3, 4, 5]), ("fc", [0, 1, 2])]


class FlattenLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 6, 3, padding=1)
        self.fc1 = nn.Linear(6 * 4 * 4, 10)
        self.fc2 = nn.Linear(10, 3)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.c(x)), 2)
        return self.fc2(torch.relu(self.fc1(torch.flatten(x, 1))))

    dead = [("c", None, [0, 2, 4]), ("fc1", None, [5, 6, 7, 8, 9])]
    fed = [("fc1", [c * 16 + i for c in (0, 2, 4) for i in range(16)]), ("fc2", [5, 6, 7, 8, 9])]


MODELS = {"residual": Residual, "concat": Concat, "depthwise": Depthwise, "grouped": Grouped,
          "squeeze_excite": SqueezeExcite, "shuffle": Shuffle, "flatten_linear": FlattenLinear}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    for i, (name, cls) in enumerate(MODELS.items()):
        torch.manual_seed(i)
        m = cls().eval()
        zeroed = {}
        with torch.no_grad():
            for mod, bnn, rows in cls.dead:
                conv = getattr(m, mod)
                conv.weight[rows] = 0
                zeroed[mod + ".weight"] = [[0, rows]]
                if conv.bias is not None:
                    conv.bias[rows] = 0
                    zeroed[mod + ".bias"] = [[0, rows]]
                if bnn:
                    b = getattr(m, bnn)
                    b.bias[rows] = 0
                    b.running_mean[rows] = 0
                    for p in ("weight", "bias", "running_mean", "running_var"):
                        zeroed["%s.%s" % (bnn, p)] = [[0, rows]]
            for mod, cols in cls.fed:
                zeroed.setdefault(mod + ".weight", []).append([1, cols])
        x = torch.from_numpy(np.random.RandomState(i).uniform(-1, 1, (2, 3, 8, 8)).astype(np.float32))
        with torch.no_grad():
            y = m(x)
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(m, x, path, opset_version=13, input_names=["input"], output_names=["output"],
                          training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=True)
        np.save(os.path.join(out, name + ".input.npy"), x.numpy())
        np.save(os.path.join(out, name + ".output.npy"), y.numpy())
        with open(os.path.join(out, name + ".zeroed.json"), "w") as f:
            json.dump(zeroed, f, indent=1, sort_keys=True)
            f.write("\n")
        print("wrote", path)


if __name__ == "__main__":
    main()
