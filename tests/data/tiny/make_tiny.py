#!/usr/bin/python3
"""Makes models of MLPerf Tiny's four benchmark shapes, exported to ONNX
(opset 13), with PyTorch's answers on a few inputs as the reference:

  dscnn     keyword spotting, MLPerf's DS-CNN-S: 49x10 MFCC input, a 10x4
            stride-2 conv to 64 channels, four depthwise-separable blocks
            (3x3 depthwise + 1x1 pointwise, 64 channels, BN, ReLU), average
            pooling, a 12-way linear layer (logits; MLPerf's softmax left
            out: it does not change the top-1). TRAINED on espeak-ng speech
            of the ten Speech Commands keywords plus "silence" and "unknown".
  resnet8   image classification, MLPerf's ResNet-8: 32x32x3, a 3x3 conv to
            16 channels, three residual stacks (16, 32, 64 channels; 1x1
            stride-2 projection shortcuts), average pooling, 10 classes.
            RANDOM weights (seeded), BatchNorm statistics taken from the
            synthetic inputs (no CIFAR-10 here).
  ad        anomaly detection, MLPerf's fully connected autoencoder: 640
            inputs (5 frames x 128 log-mel bands), 4 x 128 (BN, ReLU), an 8-unit
            bottleneck, 4 x 128, 640 outputs. TRAINED on synthetic "machine"
            sounds (harmonic hum + noise); the test set adds anomalous clips
            (a shifted fundamental or an extra tone); the score is the
            reconstruction error.
  vww       visual wake words, MLPerf's MobileNetV1 with width 0.25: 96x96x3,
            2 classes. RANDOM weights (seeded), BatchNorm statistics from the
            synthetic inputs (no COCO here).

    /usr/bin/python3 tests/data/tiny/make_tiny.py            # everything
    /usr/bin/python3 tests/data/tiny/make_tiny.py --only ad  # one model
    /usr/bin/python3 tests/data/tiny/make_tiny.py --inputs MODEL N SEED OUT.npy
        (writes N inputs of MODEL's distribution, for calibration and
         agreement checks: synthetic images for resnet8 and vww, normal
         machine-sound windows for ad; dscnn's are the committed sets)

Needs espeak-ng (dscnn only), python3-numpy, python3-scipy, python3-torch,
python3-onnx. Seeded and single-threaded (byte-identical output on a rerun);
four to six minutes on a loaded 2-core machine (dscnn's speech synthesis and
training take most of it).

MFCC (dscnn): 1 s at 16 kHz, 30 ms Hann frames (480 samples, 512-point FFT),
hop 20 ms (49 frames), 40 triangular mel bands 20 Hz..4 kHz, log(mel + 1e-6),
DCT-II (orthonormal, scipy.fft.dct) keeping 10 coefficients, each normalised
with the training set's mean and std (kept in tiny_ref.json): MLPerf Tiny's
KWS front end settings, computed with numpy/scipy (no torchaudio).

Writes, next to this script (see README.md):
  NAME.onnx              float32, dynamic batch, input "x", output "y"
  NAME_ref_x.npy         a few inputs; NAME_ref_y.npy PyTorch's outputs on them
  dscnn_test_x.npy/_y    the held-out keyword set (unseen voice variants)
  dscnn_calib_x.npy      64 training-distribution samples (not in training)
  ad_test_x.npy/_y       the anomaly test set (label 1: anomalous)
  tiny_ref.json          shapes, MAC counts (PyTorch forward hooks), seeds,
                         accuracies, feature settings
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np
import onnx
import scipy.fft
import scipy.io.wavfile
import scipy.ndimage
import scipy.signal
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 11
OPSET = 13
NREF = 4

# ---------------------------------------------------------------- models


def conv_bn(cin, cout, k, stride=1, pad=0, groups=1, relu=True):
    layers = [nn.Conv2d(cin, cout, k, stride, pad, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if relu:
        layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class DSCNN(nn.Module):
    """MLPerf Tiny KWS DS-CNN-S: 1x49x10 -> 12 logits."""

    def __init__(self, classes=12, ch=64):
        super().__init__()
        # TF's 'same' padding of the 10x4 stride-2 conv gives 25x5; symmetric
        # (5, 1) padding gives the same output size and MACs without a Pad op
        self.stem = conv_bn(1, ch, (10, 4), 2, (5, 1))
        self.drop = nn.Dropout(0.2)
        blocks = []
        for _ in range(4):
            blocks += [conv_bn(ch, ch, 3, 1, 1, groups=ch), conv_bn(ch, ch, 1)]
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)  # the 25x5 average: GlobalAveragePool
        self.fc = nn.Linear(ch, classes)

    def forward(self, x):
        x = self.blocks(self.drop(self.stem(x)))
        return self.fc(torch.flatten(self.drop(self.pool(x)), 1))


class ResBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.a = conv_bn(cin, cout, 3, stride, 1)
        self.b = conv_bn(cout, cout, 3, 1, 1, relu=False)
        self.short = None if stride == 1 and cin == cout else nn.Conv2d(cin, cout, 1, stride)
        self.relu = nn.ReLU()

    def forward(self, x):
        s = x if self.short is None else self.short(x)
        return self.relu(self.b(self.a(x)) + s)


class ResNet8(nn.Module):
    """MLPerf Tiny IC ResNet-8: 3x32x32 -> 10 logits."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = conv_bn(3, 16, 3, 1, 1)
        self.stacks = nn.Sequential(ResBlock(16, 16, 1), ResBlock(16, 32, 2), ResBlock(32, 64, 2))
        self.pool = nn.AdaptiveAvgPool2d(1)  # 8x8
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.stacks(self.stem(x))), 1))


class AutoEncoder(nn.Module):
    """MLPerf Tiny AD: 640 -> 4 x 128 -> 8 -> 4 x 128 -> 640."""

    def __init__(self, n=640, hidden=128, bottleneck=8):
        super().__init__()

        def fc(i, o):
            return [nn.Linear(i, o), nn.BatchNorm1d(o), nn.ReLU()]

        dims = [n, hidden, hidden, hidden, hidden, bottleneck, hidden, hidden, hidden, hidden]
        layers = []
        for i, o in zip(dims[:-1], dims[1:]):
            layers += fc(i, o)
        layers.append(nn.Linear(hidden, n))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)

    def fused(self):
        """The same function with each BatchNorm folded into its Linear (as
        MLPerf's exported model: Gemm + Relu only)."""
        mods = list(self.net)
        out = []
        for i, m in enumerate(mods):
            if isinstance(m, nn.BatchNorm1d):
                out[-1] = torch.nn.utils.fusion.fuse_linear_bn_eval(out[-1], m)
            else:
                out.append(m)
        f = AutoEncoder()
        f.net = nn.Sequential(*out)
        return f.eval()


class MobileNetV1(nn.Module):
    """MobileNetV1 width 0.25 (MLPerf Tiny VWW): 3x96x96 -> 2 logits."""

    def __init__(self, classes=2, alpha=0.25):
        super().__init__()

        def c(n):
            return int(n * alpha)

        cfg = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
        layers = [conv_bn(3, c(32), 3, 2, 1)]
        cin = c(32)
        for cout, s in cfg:
            layers += [conv_bn(cin, cin, 3, s, 1, groups=cin), conv_bn(cin, c(cout), 1)]
            cin = c(cout)
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)  # 3x3
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


def count_macs(net, x):
    """Multiply-accumulates of one inference, from forward hooks (Conv2d:
    output elements x kernel taps x input channels per group; Linear: in x
    out). Independent of nnfx."""
    total = [0]

    def hook(m, inp, out):
        if isinstance(m, nn.Conv2d):
            k = m.kernel_size[0] * m.kernel_size[1] * (m.in_channels // m.groups)
            total[0] += out[0].numel() * k
        elif isinstance(m, nn.Linear):
            total[0] += m.in_features * m.out_features

    hs = [m.register_forward_hook(hook) for m in net.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    with torch.no_grad():
        net.eval()(x[:1])
    for h in hs:
        h.remove()
    return total[0]


# ---------------------------------------------------------------- speech (dscnn)

SR = 16000
WIN = 480
HOP = 320
NFFT = 512
NMEL = 40
NMFCC = 10
FRAMES = 1 + (SR - WIN) // HOP  # 49
KW_CLASSES = ["down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes", "silence", "unknown"]
UNKNOWN = ["bed", "bird", "cat", "dog", "eight", "five", "four", "happy", "house", "marvin", "nine", "one",
           "seven", "sheila", "six", "three", "tree", "two", "wow", "zero", "backward", "follow", "forward",
           "learn", "visual"]
LANGS = ["en-us", "en-gb", "en-029", "en-gb-scotland", "en-gb-x-rp", "en-gb-x-gbclan"]
TRAIN_VARIANTS = ["m1", "m2", "m3", "m4", "m5", "f1", "f2", "f3", "klatt", "croak", "Alex", "Andy", "john",
                  "linda", "max", "paul", "rob", "steph", "edward", "quincy"]
TEST_VARIANTS = ["m6", "m7", "f4", "f5", "klatt2", "Annie", "david", "robert"]
N_TRAIN_PER_CLASS = 200
N_TEST_PER_CLASS = 30
N_CALIB = 64
EPOCHS = 30


def synth(rng, word, variants, tmp):
    lang = LANGS[rng.integers(len(LANGS))]
    var = variants[rng.integers(len(variants))]
    speed = int(rng.integers(110, 230))
    pitch = int(rng.integers(20, 80))
    path = os.path.join(tmp, "w.wav")
    subprocess.run(["espeak-ng", "-v", "%s+%s" % (lang, var), "-s", str(speed), "-p", str(pitch), "-w", path, word],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
    """One second of audio of class `label` (index into KW_CLASSES)."""
    out = np.zeros(SR)
    name = KW_CLASSES[label]
    if name == "silence":
        return out + noise(rng, SR) * rng.uniform(0.001, 0.1)
    word = UNKNOWN[rng.integers(len(UNKNOWN))] if name == "unknown" else name
    x = synth(rng, word, variants, tmp)
    nz = np.nonzero(np.abs(x) > 1e-3)[0]
    if len(nz):
        x = x[nz[0]:nz[-1] + 1]
    x = x[:SR]
    off = int(rng.integers(0, SR - len(x) + 1))
    out[off:off + len(x)] = x * rng.uniform(0.3, 1.0) / (np.max(np.abs(x)) + 1e-9)
    snr_db = rng.uniform(5.0, 30.0)
    p_sig = np.mean(out[off:off + len(x)] ** 2) + 1e-12
    return out + noise(rng, SR) * np.sqrt(p_sig / 10 ** (snr_db / 10.0))


def mel_bank(n_mels, n_fft, sr, lo_hz, hi_hz):
    def hz2mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def mel2hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    pts = mel2hz(np.linspace(hz2mel(lo_hz), hz2mel(hi_hz), n_mels + 2))
    bins = np.fft.rfftfreq(n_fft, 1.0 / sr)
    fb = np.zeros((n_mels, len(bins)))
    for m in range(n_mels):
        lo, c, hi = pts[m], pts[m + 1], pts[m + 2]
        fb[m] = np.clip(np.minimum((bins - lo) / (c - lo), (hi - bins) / (hi - c)), 0.0, None)
    return fb


def mfcc(x, fb):
    win = scipy.signal.get_window("hann", WIN)
    frames = np.stack([x[i * HOP:i * HOP + WIN] * win for i in range(FRAMES)])
    power = np.abs(np.fft.rfft(frames, n=NFFT, axis=1)) ** 2
    logmel = np.log(power @ fb.T + 1e-6)
    return scipy.fft.dct(logmel, type=2, norm="ortho", axis=1)[:, :NMFCC]  # 49 x 10


def speech_set(rng, per_class, variants, fb, tmp):
    xs, ys = [], []
    for i in range(per_class * len(KW_CLASSES)):
        label = i % len(KW_CLASSES)
        xs.append(mfcc(utterance(rng, label, variants, tmp), fb)[None])
        ys.append(label)
    return np.stack(xs), np.array(ys, dtype=np.int64)


def train(net, x, y, epochs, lr, batch, loss_fn, gen, augment=None):
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    for ep in range(epochs):
        net.train()
        perm = torch.randperm(len(x), generator=gen)
        for i in range(0, len(x), batch):
            idx = perm[i:i + batch]
            xb = x[idx] if augment is None else augment(x[idx])
            opt.zero_grad()
            loss = loss_fn(net(xb), y[idx])
            loss.backward()
            opt.step()
        sched.step()
        print("  epoch %d loss %.4f" % (ep, float(loss)), flush=True)
    net.eval()


def make_dscnn(ref):
    rng = np.random.default_rng(SEED)
    fb = mel_bank(NMEL, NFFT, SR, 20.0, 4000.0)
    with tempfile.TemporaryDirectory() as tmp:
        x_train, y_train = speech_set(rng, N_TRAIN_PER_CLASS, TRAIN_VARIANTS, fb, tmp)
        print("  dscnn: %d training utterances" % len(y_train), flush=True)
        x_test, y_test = speech_set(rng, N_TEST_PER_CLASS, TEST_VARIANTS, fb, tmp)
        x_calib, _ = speech_set(rng, (N_CALIB + len(KW_CLASSES) - 1) // len(KW_CLASSES), TRAIN_VARIANTS, fb, tmp)
    x_calib = x_calib[:N_CALIB]
    mu = x_train.mean(axis=(0, 1, 2))
    sd = x_train.std(axis=(0, 1, 2))

    def norm(a):
        return ((a - mu) / sd).astype(np.float32)

    x_train, x_test, x_calib = norm(x_train), norm(x_test), norm(x_calib)
    net = DSCNN(len(KW_CLASSES))
    gen = torch.Generator().manual_seed(SEED)

    def augment(xb):  # time shift by up to 3 frames (seeded)
        return torch.roll(xb, int(torch.randint(-3, 4, (1,), generator=gen)), dims=2)

    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    train(net, xt, yt, EPOCHS, 3e-3, 64, nn.functional.cross_entropy, gen, augment)
    with torch.no_grad():
        logits = net(torch.from_numpy(x_test)).numpy()
        train_acc = float((net(xt).argmax(1) == yt).float().mean() * 100.0)
    acc = float((logits.argmax(1) == y_test).mean() * 100.0)
    np.save(os.path.join(HERE, "dscnn_test_x.npy"), x_test)
    np.save(os.path.join(HERE, "dscnn_test_y.npy"), y_test)
    np.save(os.path.join(HERE, "dscnn_calib_x.npy"), x_calib)
    ref.update({"weights": "trained", "classes": KW_CLASSES, "n_train": int(len(y_train)),
                "n_test": int(len(y_test)), "train_variants": TRAIN_VARIANTS, "test_variants": TEST_VARIANTS,
                "features": {"sample_rate": SR, "window": WIN, "hop": HOP, "n_fft": NFFT, "n_mels": NMEL,
                             "mel_hz": [20.0, 4000.0], "n_mfcc": NMFCC, "frames": FRAMES,
                             "mean": [float(v) for v in mu], "std": [float(v) for v in sd]},
                "top1_percent": round(acc, 3), "train_top1_percent": round(train_acc, 3),
                "correct": int((logits.argmax(1) == y_test).sum())})
    print("  dscnn: held-out top-1 %.2f %% (train %.2f %%)" % (acc, train_acc), flush=True)
    return net, x_test[:NREF]


# ---------------------------------------------------------------- machine sound (ad)

AD_SR = 16000
AD_NFFT = 1024
AD_HOP = 512
AD_MELS = 128
AD_FRAMES = 5


def machine_clip(rng, anomalous, fb):
    """1 s of a 'machine': a hum with harmonics of f0 ~ 120 Hz and noise;
    an anomalous one has its fundamental shifted by 8-20 % or an extra
    inharmonic tone. Returns the clip's log-mel windows of 5 frames (640)."""
    t = np.arange(AD_SR) / AD_SR
    f0 = 120.0 * rng.uniform(0.98, 1.02)
    kind = rng.integers(2) if anomalous else -1
    if kind == 0:
        f0 *= rng.choice([-1.0, 1.0]) * rng.uniform(0.08, 0.2) + 1.0
    x = np.zeros_like(t)
    for h in range(1, 12):
        x += rng.uniform(0.3, 1.0) / h * np.sin(2 * np.pi * f0 * h * t + rng.uniform(0, 2 * np.pi))
    if kind == 1:
        x += rng.uniform(0.2, 0.5) * np.sin(2 * np.pi * rng.uniform(1500, 5000) * t)
    x += noise(rng, AD_SR) * rng.uniform(0.05, 0.2)
    nfr = 1 + (AD_SR - AD_NFFT) // AD_HOP
    win = scipy.signal.get_window("hann", AD_NFFT)
    frames = np.stack([x[i * AD_HOP:i * AD_HOP + AD_NFFT] * win for i in range(nfr)])
    logmel = np.log(np.abs(np.fft.rfft(frames, axis=1)) ** 2 @ fb.T + 1e-6)
    return np.stack([logmel[i:i + AD_FRAMES].ravel() for i in range(nfr - AD_FRAMES + 1)])


def auc(score, label):
    """Area under the ROC curve (rank statistic; ties averaged)."""
    order = np.argsort(score, kind="mergesort")
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    s = np.asarray(score)
    for v in np.unique(s):
        m = s == v
        ranks[m] = ranks[m].mean()
    pos = label == 1
    n1, n0 = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def normal_windows(n, seed):
    """n windows of normal machine sound (one per clip), normalised with the
    committed model's training statistics (tiny_ref.json): calibration data."""
    with open(os.path.join(HERE, "tiny_ref.json")) as f:
        feat = json.load(f)["ad"]["features"]
    rng = np.random.default_rng(seed)
    fb = mel_bank(AD_MELS, AD_NFFT, AD_SR, 0.0, AD_SR / 2)
    w = [machine_clip(rng, False, fb) for _ in range(n)]
    w = np.stack([c[rng.integers(len(c))] for c in w])
    return ((w - feat["mean"]) / feat["std"]).astype(np.float32)


def make_ad(ref):
    rng = np.random.default_rng(SEED + 1)
    fb = mel_bank(AD_MELS, AD_NFFT, AD_SR, 0.0, AD_SR / 2)
    train_x = np.concatenate([machine_clip(rng, False, fb) for _ in range(120)])
    test_x, test_y = [], []
    for i in range(200):  # one window per clip, half anomalous
        w = machine_clip(rng, i % 2 == 1, fb)
        test_x.append(w[rng.integers(len(w))])
        test_y.append(i % 2)
    mu, sd = float(train_x.mean()), float(train_x.std())
    train_x = ((train_x - mu) / sd).astype(np.float32)
    test_x = ((np.stack(test_x) - mu) / sd).astype(np.float32)
    test_y = np.array(test_y, dtype=np.int64)
    net = AutoEncoder()
    gen = torch.Generator().manual_seed(SEED)
    xt = torch.from_numpy(train_x)
    train(net, xt, xt, 30, 1e-3, 64, nn.functional.mse_loss, gen)
    with torch.no_grad():
        rec = net(torch.from_numpy(test_x)).numpy()
    score = ((rec - test_x) ** 2).mean(axis=1)
    a = auc(score, test_y)
    np.save(os.path.join(HERE, "ad_test_x.npy"), test_x)
    np.save(os.path.join(HERE, "ad_test_y.npy"), test_y)
    ref.update({"weights": "trained", "n_train": int(len(train_x)), "n_test": int(len(test_y)),
                "features": {"sample_rate": AD_SR, "n_fft": AD_NFFT, "hop": AD_HOP, "n_mels": AD_MELS,
                             "frames": AD_FRAMES, "mean": mu, "std": sd},
                "auc": round(a, 4)})
    print("  ad: AUC %.4f" % a, flush=True)
    return net.fused(), test_x[:NREF]


# ---------------------------------------------------------------- untrained vision models

SHAPES = {"dscnn": (1, 49, 10), "resnet8": (3, 32, 32), "ad": (640,), "vww": (3, 96, 96)}


def synthetic_inputs(name, n, seed):
    """n inputs of the untrained models' input distribution: smooth random
    images in [0, 1] (uniform noise, 3x3 box-blurred), float32 NCHW."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 1.0, (n,) + SHAPES[name])
    k = np.ones(3) / 3.0
    x = scipy.ndimage.convolve1d(scipy.ndimage.convolve1d(x, k, axis=2, mode="nearest"), k, axis=3, mode="nearest")
    return x.astype(np.float32)


def make_random(ref, name, cls):
    torch.manual_seed(SEED)
    net = cls()
    # BatchNorm statistics from the synthetic inputs (cumulative averages):
    # the random network's activations then stay normalised layer by layer
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.momentum = None
            m.reset_running_stats()
    x = torch.from_numpy(synthetic_inputs(name, 64, SEED))
    net.train()
    with torch.no_grad():
        for i in range(0, 64, 16):
            net(x[i:i + 16])
    net.eval()
    ref.update({"weights": "random (seeded), BatchNorm statistics from 64 synthetic inputs",
                "inputs": "uniform [0, 1] noise, 3x3 box-blurred (synthetic_inputs)"})
    return net, synthetic_inputs(name, NREF if name != "vww" else 2, SEED + 100)


# ---------------------------------------------------------------- export


def export(name, net, xref, ref):
    path = os.path.join(HERE, name + ".onnx")
    torch.onnx.export(net, torch.from_numpy(xref[:1]), path, opset_version=OPSET, input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    ops = {}
    for n in m.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    with torch.no_grad():
        y = net(torch.from_numpy(xref)).numpy().astype(np.float32)
    np.save(os.path.join(HERE, name + "_ref_x.npy"), xref)
    np.save(os.path.join(HERE, name + "_ref_y.npy"), y)
    ref.update({"input_shape": [1] + list(SHAPES[name]), "output_shape": [1] + list(y.shape[1:]), "ops": ops,
                "params": int(sum(p.numel() for p in net.parameters())),
                "macs": count_macs(net, torch.from_numpy(xref)), "onnx_bytes": os.path.getsize(path)})
    print("  %s: %d params, %d MACs, ops %s" % (name, ref["params"], ref["macs"], ops), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append", choices=list(SHAPES))
    ap.add_argument("--inputs", nargs=4, metavar=("MODEL", "N", "SEED", "OUT"))
    a = ap.parse_args()
    if a.inputs:
        name, n, seed = a.inputs[0], int(a.inputs[1]), int(a.inputs[2])
        if name == "dscnn":
            ap.error("--inputs: dscnn's inputs are the committed dscnn_calib_x.npy / dscnn_test_x.npy")
        np.save(a.inputs[3], normal_windows(n, seed) if name == "ad" else synthetic_inputs(name, n, seed))
        return
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    jpath = os.path.join(HERE, "tiny_ref.json")
    allref = {}
    if os.path.exists(jpath):
        with open(jpath) as f:
            allref = json.load(f)
    for name in a.only or list(SHAPES):
        print(name, flush=True)
        ref = {"seed": SEED, "opset": OPSET}
        if name == "dscnn":
            net, xref = make_dscnn(ref)
        elif name == "ad":
            net, xref = make_ad(ref)
        else:
            net, xref = make_random(ref, name, ResNet8 if name == "resnet8" else MobileNetV1)
        export(name, net, xref, ref)
        allref[name] = ref
        with open(jpath, "w") as f:
            json.dump(allref, f, indent=2, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
