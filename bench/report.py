#!/usr/bin/env python3
"""Turns bench/run_inference.sh's results.jsonl into a Markdown table.

A row may have several rounds (the engines took turns): an engine's time is
the median of its rounds' medians, and a ratio is the median over the
rounds of that round's ratio (pairs measured close together in time), so a
burst of load during one engine's turn moves neither much. With one round
both are the plain figures."""
import json
import statistics
import sys


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def paired_ratio(a, b):
    """Median of a[i] / b[i] over the rounds both engines ran; None if none."""
    rs = [a[k] / b[k] for k in a if k in b and a[k] and b[k]]
    return statistics.median(rs) if rs else None


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
            r.setdefault(q["engine"], {})[q.get("round", 1)] = q["r"]["median_ms"]
        elif "peak" in d:
            peaks[d["peak"]["threads"]] = d["peak"]["gflops"]
        else:
            key = (d["name"], d["batch"], d["threads"])
            r = rows.setdefault(key, {"macs": d["macs_b1"], "runs": {}, "last": {}})
            if "median_ms" in d["r"]:
                r["runs"].setdefault(d["engine"], {})[d.get("round", 1)] = d["r"]["median_ms"]
            r["last"][d["engine"]] = d["r"]
    f = lambda v: "%.2f" % v if v is not None else "—"
    print("| model | batch | threads | nnfx ms | ORT ms | PyTorch ms | nnfx/ORT | nnfx/PyTorch | nnfx GFLOP/s | % of sgemm peak | nnfx peak act. MiB | ORT RSS growth MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, b, t), r in rows.items():
        runs = r["runs"]
        ms = lambda e: med(runs.get(e, {}).values())
        n, o, p = ms("nnfx"), ms("ort"), ms("torch")
        ro = paired_ratio(runs.get("nnfx", {}), runs.get("ort", {}))
        rp = paired_ratio(runs.get("nnfx", {}), runs.get("torch", {}))
        gf = 2.0 * r["macs"] * b / (n * 1e6) if n else None
        share = "%.0f%%" % (100.0 * gf / peaks[t]) if gf and t in peaks else "—"
        nb = r["last"].get("nnfx", {}).get("peak_activation_bytes")
        ob = r["last"].get("ort", {}).get("peak_activation_bytes") if r["last"].get("ort") else None
        mib = lambda v: "%.1f" % (v / 2**20) if v is not None else "—"
        print("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, b, t, f(n), f(o), f(p), f(ro), f(rp), f(gf), share, mib(nb), mib(ob)))
    print()
    print("sgemm peak (cblas_sgemm 1536^3): " + ", ".join("%d thread%s %.1f GFLOP/s" % (t, "" if t == 1 else "s", g)
                                                        for t, g in sorted(peaks.items())))
    if int8:
        print()
        print("| int8 (QDQ), batch 1, 1 thread | nnfx int8 ms | ORT int8 ms | nnfx fp32 ms | nnfx int8 / ORT int8 | nnfx fp32 / nnfx int8 |")
        print("|---|---|---|---|---|---|")
        for name, r in int8.items():
            n, o = med(r.get("nnfx", {}).values()), med(r.get("ort", {}).values())
            fp = med(rows.get((r["base"], 1, 1), {}).get("runs", {}).get("nnfx", {}).values())
            ro = paired_ratio(r.get("nnfx", {}), r.get("ort", {}))
            print("| %s | %s | %s | %s | %s | %s |" % (name, f(n), f(o), f(fp), f(ro),
                                                        f(fp / n) if fp and n else "—"))
    for n in notes:
        print("note: " + n)


if __name__ == "__main__":
    main()
