#!/usr/bin/env python3
"""Turns bench/run_inference.sh's results.jsonl into a Markdown table."""
import json
import sys


def main():
    rows, peaks, notes, int8 = {}, {}, [], {}
    for line in open(sys.argv[1]):
        line = line.strip()
        if not line:
            continue
        d = json.loads(line)
        if "note" in d:
            notes.append(d["note"])
        elif "int8" in d:
            q = d["int8"]
            r = int8.setdefault(q["name"], {"base": q.get("base", q["name"])})
            r[q["engine"]] = q["r"]["median_ms"]
        elif "peak" in d:
            peaks[d["peak"]["threads"]] = d["peak"]["gflops"]
        else:
            key = (d["name"], d["batch"], d["threads"])
            rows.setdefault(key, {"macs": d["macs_b1"]})[d["engine"]] = d["r"]
    print("| model | batch | threads | nnfx ms | ORT ms | PyTorch ms | nnfx/ORT | nnfx/PyTorch | nnfx GFLOP/s | % of sgemm peak | nnfx peak act. MiB | ORT RSS growth MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, b, t), r in rows.items():
        def ms(e):
            x = r.get(e)
            return x["median_ms"] if x and "median_ms" in x else None
        n, o, p = ms("nnfx"), ms("ort"), ms("torch")
        f = lambda v: "%.2f" % v if v is not None else "—"
        ratio = lambda a, c: "%.2f" % (a / c) if a and c else "—"
        gf = 2.0 * r["macs"] * b / (n * 1e6) if n else None
        share = "%.0f%%" % (100.0 * gf / peaks[t]) if gf and t in peaks else "—"
        nb = r.get("nnfx", {}).get("peak_activation_bytes")
        ob = r.get("ort", {}).get("peak_activation_bytes") if r.get("ort") else None
        mib = lambda v: "%.1f" % (v / 2**20) if v is not None else "—"
        print("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, b, t, f(n), f(o), f(p), ratio(n, o), ratio(n, p), f(gf), share, mib(nb), mib(ob)))
    print()
    print("sgemm peak (cblas_sgemm 1536^3): " + ", ".join("%d thread%s %.1f GFLOP/s" % (t, "" if t == 1 else "s", g)
                                                        for t, g in sorted(peaks.items())))
    if int8:
        print()
        print("| int8 (QDQ), batch 1, 1 thread | nnfx int8 ms | ORT int8 ms | nnfx fp32 ms | nnfx int8 / ORT int8 | nnfx fp32 / nnfx int8 |")
        print("|---|---|---|---|---|---|")
        for name, r in int8.items():
            n, o = r.get("nnfx"), r.get("ort")
            fp = rows.get((r["base"], 1, 1), {}).get("nnfx")
            fp = fp["median_ms"] if fp else None
            f = lambda v: "%.2f" % v if v is not None else "—"
            ratio = lambda a, c: "%.2f" % (a / c) if a and c else "—"
            print("| %s | %s | %s | %s | %s | %s |" % (name, f(n), f(o), f(fp), ratio(n, o), ratio(fp, n)))
    for n in notes:
        print("note: " + n)


if __name__ == "__main__":
    main()
