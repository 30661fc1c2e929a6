#!/usr/bin/python3
"""Exports the model families bench/run_families.sh times (random init, eval
mode, batch 1) to ONNX, with one fixed random input each.

Usage: export_families.py OUTDIR [NAME ...]
Writes OUTDIR/<name>.onnx and OUTDIR/<name>_in.npy. Families: r3d_18
(torchvision video, 3-D convs), kws_lstm (a keyword spotter: two LSTM
layers over 49 frames of 40 MFCCs), gru (one GRU layer, 100 steps), espcn
(super-resolution x3 with PixelShuffle), unet (a small U-Net with
ConvTranspose up-sampling), swin_t and maxvit_t (torchvision vision
transformers: windowed attention, LayerNorm, GELU, relative position bias;
224x224). Needs only torch + torchvision (Debian
python3-torchvision).
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision


class KwsLstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(40, 128, num_layers=2, batch_first=True)
        self.fc = nn.Linear(128, 12)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(64, 256, batch_first=True)
        self.fc = nn.Linear(256, 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class Espcn(nn.Module):
    def __init__(self, r=3):
        super().__init__()
        self.c1 = nn.Conv2d(1, 64, 5, padding=2)
        self.c2 = nn.Conv2d(64, 32, 3, padding=1)
        self.c3 = nn.Conv2d(32, r * r, 3, padding=1)
        self.ps = nn.PixelShuffle(r)

    def forward(self, x):
        return self.ps(self.c3(torch.tanh(self.c2(torch.tanh(self.c1(x))))))


def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                         nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, ch=(16, 32, 64, 128)):
        super().__init__()
        self.downs = nn.ModuleList()
        c = 3
        for o in ch:
            self.downs.append(block(c, o))
            c = o
        self.ups = nn.ModuleList()
        self.upb = nn.ModuleList()
        for o in reversed(ch[:-1]):
            self.ups.append(nn.ConvTranspose2d(c, o, 2, stride=2))
            self.upb.append(block(2 * o, o))
            c = o
        self.head = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        skips = []
        for i, d in enumerate(self.downs):
            x = d(x)
            if i < len(self.downs) - 1:
                skips.append(x)
                x = nn.functional.max_pool2d(x, 2)
        for up, b in zip(self.ups, self.upb):
            x = up(x)
            x = b(torch.cat([x, skips.pop()], 1))
        return self.head(x)


FAMILIES = {
    "r3d_18": (lambda: torchvision.models.video.r3d_18(weights=None), (1, 3, 16, 112, 112)),
    "kws_lstm": (KwsLstm, (1, 49, 40)),
    "gru": (Gru, (1, 100, 64)),
    "espcn": (Espcn, (1, 1, 224, 224)),
    "unet": (UNet, (1, 3, 256, 256)),
    "swin_t": (lambda: torchvision.models.swin_t(weights=None), (1, 3, 224, 224)),
    "maxvit_t": (lambda: torchvision.models.maxvit_t(weights=None), (1, 3, 224, 224)),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "bench/models/families"
    names = sys.argv[2:] or list(FAMILIES)
    os.makedirs(out, exist_ok=True)
    for name in names:
        make, shape = FAMILIES[name]
        path = os.path.join(out, name + ".onnx")
        if os.path.exists(path):
            continue
        torch.manual_seed(0)
        model = make().eval()
        x = torch.from_numpy(np.random.RandomState(1).rand(*shape).astype(np.float32))
        np.save(os.path.join(out, name + "_in.npy"), x.numpy())
        with torch.no_grad():
            torch.onnx.export(model, x, path, opset_version=13, input_names=["input"], output_names=["output"],
                              do_constant_folding=True)
            np.save(os.path.join(out, name + "_ref.npy"), model(x).numpy())
        print("exported", path, flush=True)


if __name__ == "__main__":
    main()
