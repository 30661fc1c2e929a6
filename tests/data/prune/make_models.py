#!/usr/bin/python3
"""Makes the small pruning fixtures, one per coupling kind, with PyTorch:

    /usr/bin/python3 tests/data/prune/make_models.py tests/data/prune

Each model has, in every dependency group, exactly half of its channels
made dead on purpose: every producer of the channel (Conv/Linear rows,
biases) is zero and the BatchNorms after it map 0 to 0 (beta = mean = 0).
`nnfx prune --ratio 0.5 --criterion l1` must remove exactly those channels
and the pruned model must give PyTorch's output of the original model.

The shared_* models read one parameter from several ops (a conv called
twice, a shared bias, one conv in two branches); the script checks that
the export keeps each of them one initializer read by that many nodes.
shared_kept's shared BN scale is also read along the width, so its group
must stay whole.

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
import onnx
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


class SharedConv(nn.Module):
    """One nn.Conv2d called twice in a row: its weight and bias are one
    initializer read by two Conv nodes, so the stem's channels, the first
    call's and the second call's are one group (row i of the weight and its
    column i go together)."""

    def __init__(self):
        super().__init__()
        self.stem, self.b0 = nn.Conv2d(3, 8, 3, padding=1, bias=False), bn(8)
        self.c = nn.Conv2d(8, 8, 3, padding=1)
        self.b1, self.b2 = bn(8), bn(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = torch.relu(self.b0(self.stem(x)))
        x = torch.relu(self.b1(self.c(x)))
        x = torch.relu(self.b2(self.c(x)))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    dead = [("stem", "b0", [0, 2, 5, 7]), ("c", "b1", [0, 2, 5, 7]), ("c", "b2", [0, 2, 5, 7])]
    fed = [("c", [0, 2, 5, 7]), ("fc", [0, 2, 5, 7])]
    shared = {"c.weight": 2, "c.bias": 2}  # initializer: Conv nodes reading it


class SharedBias(nn.Module):
    """Two convs, one bias parameter: output channel i of both goes or
    stays together (the two groups are one)."""

    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)
        self.c2.bias = self.c1.bias
        self.c3 = nn.Conv2d(8, 6, 1)
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        x = torch.relu(self.c2(torch.relu(self.c1(x))))
        x = torch.relu(self.c3(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    dead = [("c1", None, [1, 2, 4, 6]), ("c2", None, [1, 2, 4, 6]), ("c3", None, [0, 3, 5])]
    fed = [("c2", [1, 2, 4, 6]), ("c3", [1, 2, 4, 6]), ("fc", [0, 3, 5])]
    shared = {"c1.bias": 2}


class SharedAdd(nn.Module):
    """One conv weight in two parallel branches whose outputs are added."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.c = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        s = self.stem(x)
        y = self.c(torch.relu(s)) + self.c(nn.functional.max_pool2d(s, 3, 1, 1))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(torch.relu(y), 1), 1))

    dead = [("stem", None, [3, 4, 5, 6]), ("c", None, [0, 1, 6, 7])]
    fed = [("c", [3, 4, 5, 6]), ("fc", [0, 1, 6, 7])]
    shared = {"c.weight": 2, "c.bias": 2}


class SharedCat(nn.Module):
    """One conv weight in two parallel branches whose outputs are
    concatenated: channel i of the weight is positions i and 8 + i of the
    concatenation."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.c = nn.Conv2d(8, 8, 3, padding=1)
        self.d = nn.Conv2d(16, 6, 1)
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        s = self.stem(x)
        y = torch.cat([self.c(torch.relu(s)), self.c(nn.functional.avg_pool2d(s, 3, 1, 1))], 1)
        y = torch.relu(self.d(torch.relu(y)))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1))

    dead = [("stem", None, [0, 1, 2, 7]), ("c", None, [2, 3, 4, 5]), ("d", None, [1, 2, 4])]
    fed = [("c", [0, 1, 2, 7]), ("d", [2, 3, 4, 5, 10, 11, 12, 13]), ("fc", [1, 2, 4])]
    shared = {"c.weight": 2, "c.bias": 2}


class SharedKept(nn.Module):
    """The BatchNorm's scale is also a factor along the width (W = C = 8):
    that read does not slice it by channel, so the channels of c and its
    BatchNorm stay (the group says why); the stem's group is still pruned."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.c, self.b = nn.Conv2d(8, 8, 3, padding=1, bias=False), bn(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = self.b(self.c(torch.relu(self.stem(x))))
        x = torch.relu(x * self.b.weight)
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    dead = [("stem", None, [1, 3, 4, 6])]
    fed = [("c", [1, 3, 4, 6])]
    shared = {"b.weight": 2}


MODELS = {"residual": Residual, "concat": Concat, "depthwise": Depthwise, "grouped": Grouped,
          "squeeze_excite": SqueezeExcite, "shuffle": Shuffle, "flatten_linear": FlattenLinear,
          # parameters read by several ops (one initializer each)
          "shared_conv": SharedConv, "shared_bias": SharedBias, "shared_add": SharedAdd, "shared_cat": SharedCat,
          "shared_kept": SharedKept}


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
        # the shared parameters must be one initializer in the export, read by
        # that many nodes; their zeroed slices go by the initializer's name
        g = onnx.load(path).graph
        inits = {i.name for i in g.initializer}
        for pname, readers in getattr(cls, "shared", {}).items():
            got = sum(list(n.input).count(pname) for n in g.node)
            if pname not in inits or got != readers:
                sys.exit("%s: %s is read by %d nodes, not %d as one initializer" % (name, pname, got, readers))
        params = dict(m.named_parameters())  # one name per parameter object
        for k in sorted(set(zeroed) - inits):  # a second name of a shared parameter (c2.bias is c1.bias)
            same = [j for j in inits if j in params and params[j] is m.get_parameter(k)]
            if len(same) != 1 or zeroed[k] != zeroed.get(same[0], zeroed[k]):
                sys.exit("%s: %s is not an initializer of the export" % (name, k))
            zeroed[same[0]] = zeroed.pop(k)
        np.save(os.path.join(out, name + ".input.npy"), x.numpy())
        np.save(os.path.join(out, name + ".output.npy"), y.numpy())
        with open(os.path.join(out, name + ".zeroed.json"), "w") as f:
            json.dump(zeroed, f, indent=1, sort_keys=True)
            f.write("\n")
        print("wrote", path)


if __name__ == "__main__":
    main()
