#!/usr/bin/env python3
"""Does `--runs auto` stop early on quiet cells?

Runs real variants with `langbench run --runs auto` (at least 3 runs, then
until the wall times' coefficient of variation is at most the noise
threshold, at most --max-runs) and prints, per cell, how many runs it took
and its CV. On a quiet machine every cell should stop at 3; the machine's
load at the start and end is printed beside the figures (noise costs runs).

    cargo build --release && python3 benches/runs_auto.py [--size 2020] [--lang c-gcc ...]
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LANGBENCH = os.path.join(ROOT, "target", "release", "langbench")


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="2020")
    ap.add_argument("--lang", action="append",
                    default=None, help="variant ids (default: c-gcc go rust-rustc java)")
    ap.add_argument("--bench", action="append", default=None,
                    help="benchmarks (default: num-comb str-comb)")
    ap.add_argument("--max-runs", default="10")
    ap.add_argument("--noise-threshold", default="5")
    a = ap.parse_args()
    langs = a.lang or ["c-gcc", "go", "rust-rustc", "java"]
    benches = a.bench or ["num-comb", "str-comb"]
    out = tempfile.mkdtemp(prefix="langbench-runs-auto-")
    cmd = [LANGBENCH, "run", "--size", a.size, "--runs", "auto",
           "--max-runs", a.max_runs, "--noise-threshold", a.noise_threshold,
           "--out", out]
    for l in langs:
        cmd += ["--lang", l]
    for b in benches:
        cmd += ["--bench", b]
    print("load average before:", load())
    print("$", " ".join(cmd[1:]))
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    print("load average after:", load())
    with open(os.path.join(out, "summary.csv")) as f:
        rows = list(csv.DictReader(f))
    print(f"{'variant':<14} {'benchmark':<10} {'runs':>4} {'CV':>7}")
    stopped_at_3 = 0
    cells = 0
    for r in rows:
        for b in benches:
            k = b.replace("-", "_")
            n = r.get(f"{k}_runs", "")
            if not n:
                continue
            cells += 1
            stopped_at_3 += n == "3"
            cv = float(r[f"{k}_cv"]) * 100
            print(f"{r['variant']:<14} {b:<10} {n:>4} {cv:>6.2f}%")
    print(f"{stopped_at_3} of {cells} cells stopped at 3 runs (threshold {a.noise_threshold}%)")
    print("results:", out)


if __name__ == "__main__":
    sys.exit(main())
