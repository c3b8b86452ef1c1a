#!/usr/bin/env python3
"""langbench's own cost as results grow (issue #41): each command's wall
time and peak RSS (GNU time's %e and %M, median of --repeat) on synthetic
results directories of 650 and 6,500 variants (--large: 65,000 too; made by
benches/scale_gen.py, kept under --work), and each figure's growth exponent
(log of the ratio between sizes over log of the ratio of variants: 1 is
linear). With --old BIN the same commands run with a second binary,
interleaved run by run, and the table shows both.

    cargo build --release
    python3 benches/scale.py [--old /tmp/lb-old] [--sizes 650,6500] [--large] [--repeat 3]

The commands: `report DIR`, `report --check DIR` (after the same binary's report), `merge`
of 10 shards (`run --resume` with every cell done is out until the
generator seals its records: see COMMANDS; it was timed each
time on a fresh copy: of the records and their derived files, as a
finished run leaves them, and of the records alone, which it rewrites),
`compare A B`, `history` of 3 editions. No timing is asserted: CI runs it
at --sizes 80 --repeat 1 as a smoke (every command succeeds on a generated
directory).
"""
import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COMMANDS = [
    ("report", ["report", "results/2026"], None),
    ("report --check", ["report", "--check", "results/2026"], "check"),
    ("merge 10 shards", ["merge", "results/merged"] + [f"results/shards/{i}" for i in range(1, 11)],
     "merge"),
    # `run --resume` of a done directory is out until the generator can
    # seal its records (issue #59 row 4, 5490af6): --resume trusts only runs
    # sealed by this machine's key, results/2026's are not, so every cell
    # of a generated directory would be measured again.
    # ("run --resume (done)", [...], "resume"), ("... no derived", [...], "resume-records"),
    ("compare A B", ["compare", "results/2021", "results/2026"], None),
    ("history (3)", ["history", "results/2020", "results/2021", "results/2026"], None),
]


def prepare(d, what, binary):
    """What a command needs fresh before each timed run (not timed). The
    derived files a command reads are each binary's own: two langbench
    versions may derive different files from the same records (a fix
    that reads more of them), and `report --check` or a `--resume` with
    nothing to do would then time a stale directory."""
    if what == "check":
        untimed(binary, d, ["report", "results/2026"])
    elif what == "merge":
        shutil.rmtree(f"{d}/results/merged", ignore_errors=True)
    elif what == "resume":
        # As a finished run leaves it: the records and their derived files
        # (written by the untimed `report` of 2026 below).
        shutil.rmtree(f"{d}/results/resume", ignore_errors=True)
        shutil.copytree(f"{d}/results/2026", f"{d}/results/resume",
                        ignore=shutil.ignore_patterns(".lock"))
        untimed(binary, d, ["report", "results/resume"])
    elif what == "resume-records":
        # The records alone (a directory whose derived files were deleted
        # or never written): the run rewrites them.
        shutil.rmtree(f"{d}/results/resume", ignore_errors=True)
        os.makedirs(f"{d}/results/resume")
        for f in ("runs.jsonl", "sessions.jsonl"):
            shutil.copy(f"{d}/results/2026/{f}", f"{d}/results/resume/{f}")


def untimed(binary, d, args):
    subprocess.run([binary] + args, cwd=d, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def timed(binary, d, args):
    with tempfile.NamedTemporaryFile("r") as t:
        p = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%e %M", binary] + args,
                           cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            sys.exit(f"{binary} {' '.join(args)} in {d} failed ({p.returncode}):\n{p.stderr[-2000:]}")
        wall, rss = t.read().split()[-2:]
    return float(wall), int(rss) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--new", default=f"{ROOT}/target/release/langbench")
    ap.add_argument("--old", help="a second binary, timed interleaved with --new")
    ap.add_argument("--sizes", default="650,6500")
    ap.add_argument("--large", action="store_true", help="65,000 variants too")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--work", default="/tmp/langbench-scale")
    ap.add_argument("--only", action="append", help="command names (default: all)")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")] + ([65000] if a.large else [])
    bins = [("new", os.path.realpath(a.new))] + ([("old", os.path.realpath(a.old))] if a.old else [])
    cmds = [c for c in COMMANDS if not a.only or c[0] in a.only]
    figures = {}
    for n in sizes:
        d = f"{a.work}/{n}"
        if not os.path.exists(f"{d}/languages.toml"):
            subprocess.run([sys.executable, f"{ROOT}/benches/scale_gen.py", d, "--variants", str(n),
                            "--shards", "10", "--langbench", bins[-1][1]], check=True)
        # The derived files `report --check` compares, and the tree warmed.
        timed(bins[0][1], d, ["report", "results/2026"])
        for name, args, what in cmds:
            for side, b in bins:
                figures[(n, name, side)] = []
            for _ in range(a.repeat):
                for side, b in bins:
                    prepare(d, what, b)
                    figures[(n, name, side)].append(timed(b, d, args))
            for side, b in bins:
                w, m = med(figures[(n, name, side)])
                print(f"{n:>6} variants  {side:3}  {name:22} {w:8.2f} s {m:8.0f} MB", flush=True)
    print()
    print("| command | " + " | ".join(f"{n} variants {s}" for n in sizes for s, _ in bins)
          + (f" | exponent {sizes[0]}→{sizes[-1]} " + " ".join(s for s, _ in bins) if len(sizes) > 1 else "")
          + " |")
    print("|---" * (1 + len(sizes) * len(bins) + (len(sizes) > 1)) + "|")
    for name, _, _ in cmds:
        row = []
        for n in sizes:
            for side, _ in bins:
                w, m = med(figures[(n, name, side)])
                row.append(f"{w:.2f} s, {m:.0f} MB")
        if len(sizes) > 1:
            ex = []
            for side, _ in bins:
                w0, _ = med(figures[(sizes[0], name, side)])
                w1, _ = med(figures[(sizes[-1], name, side)])
                ex.append(f"{math.log(max(w1, 0.01) / max(w0, 0.01)) / math.log(sizes[-1] / sizes[0]):.2f}")
            row.append(" / ".join(ex))
        print(f"| `{name}` | " + " | ".join(row) + " |")


def med(xs):
    return statistics.median(x[0] for x in xs), statistics.median(x[1] for x in xs)


if __name__ == "__main__":
    main()
