#!/usr/bin/python3
"""Makes the keyword-spotting ("wake word") fixture: speech synthesised with
Debian's espeak-ng, log-mel features, a small sigmoid-gated conv model with
BatchNorm trained in PyTorch, and PyTorch's answers as the reference.

    /usr/bin/python3 tests/data/kws/make_kws.py

Needs espeak-ng, python3-numpy, python3-scipy, python3-torch, python3-onnx.
Seeded and single-threaded; trains in about a minute on one core.

Classes: yes, no, up, down, unknown (other words), silence (noise only).
Utterances: espeak-ng English voices x voice variants x speeds x pitches,
resampled to 8 kHz, placed at a random offset in a 1 s window, random gain,
white and low-passed ("brown") noise at a random SNR. The held-out split
uses voice variants that never occur in training (unseen speakers).

Features: 1 s at 8 kHz, 256-sample Hann frames, hop 250 (31 frames),
20 triangular mel bands 60 Hz..4 kHz, log(mel + 1e-6); input 1 x 31 x 20.

Writes, next to this script:
  kws.onnx           opset 13, BatchNormalization kept (not folded), Sigmoid
                     gates (x * sigmoid(x)), ReduceMean, Gemm; dynamic batch
  kws_test_x.npy     float32 N x 1 x 31 x 20, the held-out split
  kws_test_y.npy     int64 N, its labels (index into "classes")
  kws_logits.npy     PyTorch's float32 N x 6 logits on the held-out split
  kws_ref.json       classes, seeds, sizes, op counts, PyTorch's top-1 of the
                     model and of the model with every sigmoid replaced by
                     hard_sigmoid(alpha=0.2, beta=0.5)
"""
import json
import os
import subprocess
import tempfile

import numpy as np
import onnx
import scipy.io.wavfile
import scipy.signal
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 7
OPSET = 13
SR = 8000
N_FFT = 256
HOP = 250
N_MELS = 20
FRAMES = 1 + (SR - N_FFT) // HOP
EPOCHS = 24

CLASSES = ["yes", "no", "up", "down", "unknown", "silence"]
KEYWORDS = CLASSES[:4]
UNKNOWN = ["left", "right", "stop", "go", "on", "off", "house", "bed", "cat", "dog", "tree", "zero",
           "one", "two", "three", "wow", "bird", "happy", "yellow", "now", "dune", "yesterday", "note",
           "open"]
LANGS = ["en-us", "en-gb", "en-029", "en-gb-scotland", "en-gb-x-rp", "en-gb-x-gbclan"]
TRAIN_VARIANTS = ["m1", "m2", "m3", "m4", "m5", "f1", "f2", "f3", "klatt", "croak", "Alex", "Andy",
                  "john", "linda", "max", "paul", "rob", "steph", "edward", "quincy"]
TEST_VARIANTS = ["m6", "m7", "f4", "f5", "klatt2", "Annie", "david", "robert"]
N_TRAIN_PER_CLASS = 300
N_TEST_PER_CLASS = 40


def synth(rng, word, variants, tmp):
    lang = LANGS[rng.integers(len(LANGS))]
    var = variants[rng.integers(len(variants))]
    speed = int(rng.integers(110, 230))
    pitch = int(rng.integers(20, 80))
    path = os.path.join(tmp, "w.wav")
    subprocess.run(["espeak-ng", "-v", "%s+%s" % (lang, var), "-s", str(speed), "-p", str(pitch),
                    "-w", path, word], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sr, pcm = scipy.io.wavfile.read(path)
    x = pcm.astype(np.float64) / 32768.0
    g = np.gcd(sr, SR)
    return scipy.signal.resample_poly(x, SR // g, sr // g)


def noise(rng, n):
    white = rng.standard_normal(n)
    brown = np.cumsum(rng.standard_normal(n))
    brown -= np.linspace(brown[0], brown[-1], n)
    brown /= np.std(brown) + 1e-9
    mix = rng.uniform(0.0, 1.0)
    return mix * white + (1.0 - mix) * brown


def utterance(rng, label, variants, tmp):
    """One second of audio for class `label`."""
    out = np.zeros(SR)
    if CLASSES[label] != "silence":
        word = CLASSES[label] if label < 4 else UNKNOWN[rng.integers(len(UNKNOWN))]
        x = synth(rng, word, variants, tmp)
        nz = np.nonzero(np.abs(x) > 1e-3)[0]
        if len(nz):
            x = x[nz[0]:nz[-1] + 1]
        x = x[:SR]
        off = int(rng.integers(0, SR - len(x) + 1))
        out[off:off + len(x)] = x * rng.uniform(0.3, 1.0) / (np.max(np.abs(x)) + 1e-9)
        snr_db = rng.uniform(5.0, 30.0)
        p_sig = np.mean(out[off:off + len(x)] ** 2) + 1e-12
        out += noise(rng, SR) * np.sqrt(p_sig / 10 ** (snr_db / 10.0))
    else:
        out += noise(rng, SR) * rng.uniform(0.001, 0.1)
    return out


def mel_bank():
    def hz2mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def mel2hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    pts = mel2hz(np.linspace(hz2mel(60.0), hz2mel(SR / 2), N_MELS + 2))
    bins = np.fft.rfftfreq(N_FFT, 1.0 / SR)
    fb = np.zeros((N_MELS, len(bins)))
    for m in range(N_MELS):
        lo, c, hi = pts[m], pts[m + 1], pts[m + 2]
        fb[m] = np.clip(np.minimum((bins - lo) / (c - lo), (hi - bins) / (hi - c)), 0.0, None)
    return fb


def logmel(x, fb):
    win = np.hanning(N_FFT)
    frames = np.stack([x[i * HOP:i * HOP + N_FFT] * win for i in range(FRAMES)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    return np.log(power @ fb.T + 1e-6).astype(np.float32)  # FRAMES x N_MELS


def make_set(rng, per_class, variants, fb, tmp):
    xs, ys = [], []
    for i in range(per_class * len(CLASSES)):
        label = i % len(CLASSES)
        xs.append(logmel(utterance(rng, label, variants, tmp), fb)[None])
        ys.append(label)
    return np.stack(xs), np.array(ys, dtype=np.int64)


class Gate(nn.Module):
    """x * sigmoid(x): the sigmoid-gated activation (exports as Sigmoid, Mul)."""

    def forward(self, x):
        return x * torch.sigmoid(x)


class KWS(nn.Module):
    """1x31x20 log-mel -> conv/BN/gate, depthwise-separable blocks (strided),
    a sigmoid-gated 1x1 branch, mean over time and frequency, linear -> 6."""

    def __init__(self):
        super().__init__()

        def cbg(cin, cout, k, stride=1, groups=1):
            return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
                                 nn.BatchNorm2d(cout), Gate())

        self.stem = cbg(1, 16, 3)
        self.dw1 = cbg(16, 16, 3, 2, 16)
        self.pw1 = cbg(16, 32, 1)
        self.dw2 = cbg(32, 32, 3, 2, 32)
        self.pw2 = cbg(32, 32, 1)
        # GLU-style gate: a 1x1 conv's sigmoid scales the features
        self.gate = nn.Conv2d(32, 32, 1)
        self.fc = nn.Linear(32, len(CLASSES))

    def forward(self, x):
        x = self.pw1(self.dw1(self.stem(x)))
        x = self.pw2(self.dw2(x))
        x = x * torch.sigmoid(self.gate(x))
        return self.fc(x.mean(dim=(2, 3)))


def hard_gate_copy(net):
    """The model with every sigmoid replaced by hard_sigmoid(x, 0.2, 0.5)."""
    import copy

    v = copy.deepcopy(net)
    hs = lambda t: torch.clamp(0.2 * t + 0.5, 0.0, 1.0)  # noqa: E731

    class HGate(nn.Module):
        def forward(self, x):
            return x * hs(x)

    for name, mod in list(v.named_modules()):
        for cname, child in list(mod.named_children()):
            if isinstance(child, Gate):
                setattr(mod, cname, HGate())

    def fwd(x):
        x = v.pw1(v.dw1(v.stem(x)))
        x = v.pw2(v.dw2(x))
        x = x * hs(v.gate(x))
        return v.fc(x.mean(dim=(2, 3)))

    return fwd


def main():
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(SEED)
    fb = mel_bank()
    with tempfile.TemporaryDirectory() as tmp:
        x_train, y_train = make_set(rng, N_TRAIN_PER_CLASS, TRAIN_VARIANTS, fb, tmp)
        x_test, y_test = make_set(rng, N_TEST_PER_CLASS, TEST_VARIANTS, fb, tmp)
    # normalise with the training set's statistics (kept in the json)
    mu, sd = float(x_train.mean()), float(x_train.std())
    x_train = ((x_train - mu) / sd).astype(np.float32)
    x_test = ((x_test - mu) / sd).astype(np.float32)

    net = KWS()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    g = torch.Generator().manual_seed(SEED)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    for ep in range(EPOCHS):
        net.train()
        perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 32):
            idx = perm[i:i + 32]
            xb = xt[idx]
            # time-shift augmentation (seeded)
            shift = int(torch.randint(-3, 4, (1,), generator=g))
            xb = torch.roll(xb, shift, dims=2)
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(xb), yt[idx])
            loss.backward()
            opt.step()
        sched.step()
        print("epoch %d loss %.4f" % (ep, float(loss)))
    net.eval()

    path = os.path.join(HERE, "kws.onnx")
    torch.onnx.export(net, torch.zeros(1, 1, FRAMES, N_MELS), path, opset_version=OPSET,
                      input_names=["x"], output_names=["logits"],
                      dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}},
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    ops = {}
    for n in m.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    assert ops.get("BatchNormalization") == 5, "export folded the BatchNorms: %s" % ops
    assert ops.get("Sigmoid") == 6, ops

    with torch.no_grad():
        logits = net(torch.from_numpy(x_test)).numpy().astype(np.float32)
        hard = hard_gate_copy(net)(torch.from_numpy(x_test)).numpy()
        train_acc = float((net(xt).argmax(1) == yt).float().mean() * 100.0)
    np.save(os.path.join(HERE, "kws_test_x.npy"), x_test)
    np.save(os.path.join(HERE, "kws_test_y.npy"), y_test)
    np.save(os.path.join(HERE, "kws_logits.npy"), logits)
    acc = float((logits.argmax(1) == y_test).mean() * 100.0)
    hacc = float((hard.argmax(1) == y_test).mean() * 100.0)
    ref = {"classes": CLASSES, "seed": SEED, "opset": OPSET, "sample_rate": SR, "n_fft": N_FFT,
           "hop": HOP, "n_mels": N_MELS, "frames": FRAMES, "feature_mean": mu, "feature_std": sd,
           "n_train": int(len(y_train)), "n_test": int(len(y_test)),
           "train_variants": TRAIN_VARIANTS, "test_variants": TEST_VARIANTS, "ops": ops,
           "params": int(sum(p.numel() for p in net.parameters())),
           "train_top1_percent": round(train_acc, 4),
           "top1_percent": round(acc, 4), "correct": int((logits.argmax(1) == y_test).sum()),
           "sigmoid_to_hard_sigmoid": {"top1_percent": round(hacc, 4),
                                       "correct": int((hard.argmax(1) == y_test).sum())}}
    with open(os.path.join(HERE, "kws_ref.json"), "w") as f:
        json.dump(ref, f, indent=2, sort_keys=True)
        f.write("\n")
    print("kws: top-1 %.2f %% (train %.2f %%), hard_sigmoid %.2f %%, ops %s" % (acc, train_acc, hacc, ops))


if __name__ == "__main__":
    main()
