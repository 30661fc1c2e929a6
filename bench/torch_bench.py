#!/usr/bin/python3
"""Times PyTorch eager (torchvision model, the weights the ONNX export
used) on one input; prints the same JSON line as `nnfx run --bench`.

Usage: torch_bench.py MODEL_NAME WEIGHTS.pt INPUT.npy RUNS THREADS
"""
import json
import sys
import time

try:
    import numpy as np
    import torch
    import torchvision
except ImportError as e:  # engine missing: say so, do not fail the run
    print(json.dumps({"skipped": "PyTorch not importable (%s)" % e}))
    sys.exit(0)


def main():
    name, weights, inp, runs, threads = sys.argv[1:6]
    runs, threads = int(runs), int(threads)
    torch.set_num_threads(threads)
    model = getattr(torchvision.models, name)(weights=None).eval()
    model.load_state_dict(torch.load(weights))
    x = torch.from_numpy(np.load(inp))
    ms = []
    with torch.inference_mode():
        model(x)
        for _ in range(runs):
            t0 = time.perf_counter()
            model(x)
            ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()
    med = ms[runs // 2] if runs % 2 else (ms[runs // 2 - 1] + ms[runs // 2]) / 2
    print(json.dumps({"model": name, "runs": runs, "threads": threads, "median_ms": med, "min_ms": ms[0],
                      "peak_activation_bytes": None}))


if __name__ == "__main__":
    main()
