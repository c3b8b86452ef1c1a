#!/usr/bin/env python3
"""langbench's own overhead, side by side with /usr/bin/time and hyperfine.

For a few short commands, each tool measures the command R times; we print
the median wall time and peak RSS each tool reports. Then hyperfine times
the *invocations* of `langbench measure -- CMD` and `/usr/bin/time CMD`
against plain `CMD`, which is the cost a user pays per measured run.

    cargo build --release && python3 benches/overhead.py [--runs 30]

Needs /usr/bin/time and hyperfine (Debian packages `time`, `hyperfine`).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LANGBENCH = os.path.join(ROOT, "target", "release", "langbench")

COMMANDS = [
    ("true", ["true"]),
    ("python3 -c pass", ["python3", "-c", "pass"]),
    ("python3 touching 200 MB", ["python3", "-c",
        "b = bytearray(200 * 1024 * 1024)\nfor i in range(0, len(b), 4096): b[i] = 1"]),
]


def gnu_time(cmd):
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    wall, rss = r.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss)


def langbench(cmd):
    r = subprocess.run([LANGBENCH, "measure", "--json", "--"] + cmd,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    j = json.loads(r.stdout)
    return j["wall_s"], j["max_rss_kb"]


def hyperfine(cmds, runs, shell_none=True):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        args = ["hyperfine", "--runs", str(runs), "--warmup", "3", "--export-json", f.name,
                "--style", "none"]
        if shell_none:
            args.append("-N")
        subprocess.run(args + cmds, stdout=subprocess.DEVNULL, check=True)
        return json.load(open(f.name))["results"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    if not os.path.exists(LANGBENCH):
        sys.exit("build first: cargo build --release")

    print(f"## What each tool reports for the same command (median of {a.runs} runs)\n")
    print("| command | /usr/bin/time wall | langbench wall | hyperfine wall | "
          "/usr/bin/time RSS KB | langbench RSS KB |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, cmd in COMMANDS:
        g = [gnu_time(cmd) for _ in range(a.runs)]
        l = [langbench(cmd) for _ in range(a.runs)]
        h = hyperfine([subprocess.list2cmdline(cmd)], a.runs, shell_none=True)[0]
        print(f"| `{name}` | {statistics.median(x[0] for x in g):.3f} s | "
              f"{statistics.median(x[0] for x in l)*1000:.2f} ms | {h['median']*1000:.2f} ms | "
              f"{statistics.median(x[1] for x in g):,} | {statistics.median(x[1] for x in l):,} |")

    print(f"\n## Cost of one measured invocation (hyperfine -N, {a.runs} runs)\n")
    print("| invocation | median | mean ± σ |")
    print("|---|---:|---:|")
    for name, cmd in COMMANDS[:2]:
        quoted = subprocess.list2cmdline(cmd)
        # Contained (the default: PID + mount namespace, init) and not.
        res = hyperfine([quoted, f"/usr/bin/time -f %M {quoted}",
                         f"{LANGBENCH} measure -- {quoted}",
                         f"{LANGBENCH} measure --no-sandbox -- {quoted}"], a.runs)
        for r in res:
            label = r["command"].replace(LANGBENCH, "langbench")
            print(f"| `{label}` | {r['median']*1000:.2f} ms | "
                  f"{r['mean']*1000:.2f} ± {r['stddev']*1000:.2f} ms |")


if __name__ == "__main__":
    main()
