#!/usr/bin/env python3
"""Fidelity: langbench's figures against a person's `/usr/bin/time`, side by
side in one run (issue #22).

For every installed CPU variant (or `--lang ID ...`), one benchmark at one
size, three times each way, interleaved:

- langbench: `langbench run --lang ID --bench B --size S --runs 1` (contained,
  the defaults), once per round, each into its own results directory, with
  langbench's state (its per-variant caches) in STATE;
- by hand: the exact commands the run recorded (`identity.commands`: its
  build and run, placeholders expanded), typed into a shell under
  `/usr/bin/time -f '%e %M'` in a fresh build directory, from the languages
  file's directory, with HOME a person's home whose caches start as STATE's
  do (empty with `--cold`, else kept from earlier rounds and sittings).

Prints per variant the best-of-3 wall and peak RSS of each way, their
ratios (langbench / by hand), and flags any outside 10% wall or 5% RSS.
The by-hand build step's peak and time are folded as langbench does (wall
summed, the larger peak). Compare ratios, not absolute figures: the machine
may be shared.

    cargo build --release
    python3 benches/fidelity.py --size 2020 --bench num-comb --cold   # a fresh machine
    python3 benches/fidelity.py --size 2020 --bench num-comb          # warm caches

`--work DIR` keeps STATE and the person's HOME there (default: a directory
under /var/tmp that `--cold` empties first); `--json FILE` writes the rows
(after each variant); `--markdown FILE` prints saved rows as a table.
Needs /usr/bin/time (Debian package `time`).

Not contained: the by-hand side runs the languages file's recorded commands
in a plain shell as you (often root), because a person typing them is the
reference (docs/containment.md, "What is not contained"). So it refuses a
languages file, or programs next to it, that differ from what the
checkout's HEAD commits (or that lie outside a git checkout): run it on a
reviewed, merged languages.toml only, never on a pull request's.
`--unreviewed` runs one anyway, once you have read every line of it and
its programs.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LANGBENCH = os.path.join(ROOT, "target", "release", "langbench")
TIME = "/usr/bin/time"


def variants(languages):
    """`langbench list --json`: every variant, with the environment a run of
    it gets (its toolchain's launchers first on PATH, its `env`)."""
    out = subprocess.run(
        [LANGBENCH, "list", "--json", "--languages", languages],
        check=True, capture_output=True, text=True,
    ).stdout
    return {r["id"]: r for r in json.loads(out)}


def installed_cpu_variants(rows, bench):
    return [i for i, r in rows.items() if r.get("installed") and bench in (r.get("benchmarks") or [])
            and not i.startswith("ws-")]


def langbench_round(vid, args, out, env):
    cmd = [LANGBENCH, "run", "--languages", args.languages, "--lang", vid, "--bench", args.bench,
           "--size", args.size, "--runs", "1", "--timeout", str(args.timeout), "--out", out]
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    recs = [json.loads(l) for l in open(os.path.join(out, "runs.jsonl"))]
    rec = [r for r in recs if r["variant"] == vid and r["run"] == 1][-1]
    return rec


def by_hand(commands, root, home, timeout, variant_env, build):
    """Runs the recorded commands as a person would, each under
    /usr/bin/time, with the variant's toolchain on PATH as the person who
    installed it has, in `build`: one working directory for every round,
    emptied before each, as a person types the command again where they
    are (and as langbench binds a fresh build directory at one path: some
    compilers key their caches by the working directory, `nim r` among
    them, which a new directory per round rebuilt every time); returns
    (status, wall, peak KB)."""
    shutil.rmtree(build, ignore_errors=True)
    os.makedirs(build)
    wall, peak, ok = 0.0, 0, True
    env = dict(os.environ, HOME=home, TMPDIR="/tmp", LANG="C.UTF-8")
    env.update(variant_env or {})
    # The toolchains a person has in their home stay theirs.
    real = os.environ.get("HOME", "/root")
    env.setdefault("RUSTUP_HOME", os.path.join(real, ".rustup"))
    try:
        for c in commands:
            what, _, line = c.partition(": ")
            if what == "prepare":
                continue
            # The record writes the checkout's paths relative to it, and the
            # run's directory as its placeholder.
            line = re.sub(r"(?<![\w/.])programs/", root + "/programs/", line)
            line = line.replace("{build}", build)
            timing = os.path.join(build, ".time")
            argv = [TIME, "-o", timing, "-f", "%e %M", "sh", "-c", line]
            p = subprocess.run(argv, cwd=build, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
            last = open(timing).read().split("\n")
            last = [l for l in last if l.strip()][-1].split()
            wall += float(last[0])
            peak = max(peak, int(last[1]))
            if p.returncode != 0:
                ok = False
                break
    except subprocess.TimeoutExpired:
        ok = False
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return ok, wall, peak


def unreviewed(languages):
    """Why the languages file (and the programs beside it) is not what the
    checkout's HEAD commits, or None when it is: fidelity.py runs their
    commands uncontained, so only a committed (reviewed) file may."""
    languages = os.path.abspath(languages)
    root = os.path.dirname(languages)
    git = lambda *a: subprocess.run(["git", "-C", root, *a], capture_output=True, text=True)
    top = git("rev-parse", "--show-toplevel")
    if top.returncode != 0:
        return f"{languages} is not in a git checkout, so nothing says it was reviewed"
    rel = os.path.relpath(languages, top.stdout.strip())
    committed = git("show", f"HEAD:./{os.path.basename(languages)}")
    if committed.returncode != 0:
        return f"{rel} is not committed at HEAD"
    with open(languages) as f:
        if f.read() != committed.stdout:
            return f"{rel} differs from the committed one (git diff HEAD -- {rel})"
    changed = git("status", "--porcelain", "--untracked-files=all", "--", "programs").stdout.split("\n")
    changed = [l[3:] for l in changed if l.strip()]
    if changed:
        return f"programs beside {rel} differ from the committed ones: {', '.join(changed[:5])}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--languages", default=os.path.join(ROOT, "languages.toml"))
    ap.add_argument("--lang", action="append", default=[])
    ap.add_argument("--bench", default="num-comb")
    ap.add_argument("--size", default="2020")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--cold", action="store_true", help="start from empty caches (a fresh machine)")
    ap.add_argument("--work", default="/var/tmp/langbench-fidelity")
    ap.add_argument("--json")
    ap.add_argument("--markdown", metavar="JSON",
                    help="print a saved sitting (--json) as a Markdown table and exit")
    ap.add_argument("--unreviewed", action="store_true",
                    help="run a languages file (or programs) that differ from the committed ones; "
                         "their commands run uncontained, as you")
    args = ap.parse_args()
    if args.markdown:
        return markdown(args.markdown)
    why = unreviewed(args.languages)
    if why and not args.unreviewed:
        print(f"error: {why}.\n  fidelity.py runs the recorded commands uncontained, as you: commit the "
              f"reviewed file first, or pass --unreviewed once you have read it and its programs.",
              file=sys.stderr)
        return 2
    state, home = os.path.join(args.work, "state"), os.path.join(args.work, "home")
    if args.cold:
        shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(state, exist_ok=True)
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, LANGBENCH_STATE=state)
    root = os.path.dirname(os.path.abspath(args.languages))
    rows_by_id = variants(args.languages)
    ids = args.lang or installed_cpu_variants(rows_by_id, args.bench)
    rows = []
    print(f"{'variant':28} {'langbench s':>11} {'by hand s':>10} {'wall ×':>7} "
          f"{'lb RSS MB':>9} {'hand MB':>8} {'RSS ×':>6}  notes", flush=True)
    for vid in ids:
        lb, hand, notes = [], [], []
        with tempfile.TemporaryDirectory(prefix="fidelity-out-") as outs:
            for i in range(args.rounds):
                rec = langbench_round(vid, args, os.path.join(outs, str(i)), env)
                if rec["status"] == "ok":
                    lb.append((rec["wall_s"], rec["max_rss_kb"], rec.get("cache")))
                else:
                    notes.append(f"langbench run {i + 1}: {rec['status']}")
                commands = (rec.get("identity") or {}).get("commands")
                if not commands:
                    notes.append("no identity recorded")
                    break
                ok, wall, kb = by_hand(commands, root, home, args.timeout,
                                      rows_by_id.get(vid, {}).get("env"),
                                      os.path.join(args.work, "build"))
                if ok:
                    hand.append((wall, kb))
                else:
                    notes.append(f"by hand run {i + 1} failed")
        if not lb or not hand:
            print(f"{vid:28} {'-':>11} {'-':>10} {'-':>7} {'-':>9} {'-':>8} {'-':>6}  {'; '.join(notes)}")
            rows.append({"variant": vid, "notes": notes})
            save(args.json, rows)
            continue
        row = judge({"variant": vid, "langbench": lb, "by_hand": hand, "notes": notes})
        print(line(row), flush=True)
        rows.append(row)
        save(args.json, rows)
    save(args.json, rows)


def warm(runs, cold_first):
    """The runs that count for the spread: without run 1 when it started on
    cold caches (langbench leaves a cold run out of its spread too; by hand,
    run 1 of a cold sitting is as cold as langbench's)."""
    return runs[1:] if cold_first and len(runs) > 2 else runs


def judge(row):
    """The row's best-of-N figures, their ratios (langbench / by hand), and
    its notes: a ratio outside 10% wall or 5% RSS is flagged, and said to be
    within the runs' own spread when the two sides' ranges of warm runs
    overlap (a garbage-collected heap's peak moves 5-15% from run to run)."""
    lb, hand, notes = row["langbench"], row["by_hand"], list(row["notes"])
    (lw, lk, _), (hw, hk) = min(lb), min(hand)
    rw, rk = lw / hw if hw else 0, lk / hk if hk else 0
    cold = any(c == "cold" for _, _, c in lb[:1])
    if cold and "langbench run 1 cold" not in notes:
        notes.append("langbench run 1 cold")
    lb_w, hand_w = warm(lb, cold), warm(hand, cold)
    for what, ratio, bound, a, b, unit in (
        ("WALL", rw, 0.10, [r[0] for r in lb_w], [r[0] for r in hand_w], "s"),
        ("RSS", rk, 0.05, [r[1] / 1024 for r in lb_w], [r[1] / 1024 for r in hand_w], "MB"),
    ):
        flag = f"{what} OUTSIDE {bound:.0%}"
        notes = [n for n in notes if not n.startswith(flag)]
        if abs(ratio - 1) > bound:
            overlap = min(a) <= max(b) and min(b) <= max(a)
            fmt = (lambda x: f"{x:.2f}") if unit == "s" else (lambda x: f"{x:.0f}")
            spread = (f"langbench {fmt(min(a))}-{fmt(max(a))} {unit}, "
                      f"by hand {fmt(min(b))}-{fmt(max(b))} {unit}")
            notes.append(f"{flag}, " + ("within the runs' spread" if overlap else "beyond the runs' spread")
                         + f" ({spread})")
    return dict(row, wall_ratio=rw, rss_ratio=rk, notes=notes)


def line(row):
    if "langbench" not in row or not row["langbench"] or not row["by_hand"]:
        return f"{row['variant']:28} {'-':>11} {'-':>10} {'-':>7} {'-':>9} {'-':>8} {'-':>6}  {'; '.join(row['notes'])}"
    (lw, lk, _), (hw, hk) = min(row["langbench"]), min(row["by_hand"])
    return (f"{row['variant']:28} {lw:11.3f} {hw:10.3f} {row['wall_ratio']:7.2f} {lk / 1024:9.1f} "
            f"{hk / 1024:8.1f} {row['rss_ratio']:6.2f}  {'; '.join(row['notes'])}")


def markdown(path):
    """A saved sitting (--json) as a Markdown table, judged again."""
    print("| variant | langbench s | by hand s | wall × | langbench MB | by hand MB | RSS × | notes |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for row in json.load(open(path)):
        if "langbench" not in row or not row.get("langbench") or not row.get("by_hand"):
            print(f"| {row['variant']} | - | - | - | - | - | - | {'; '.join(row['notes'])} |")
            continue
        row = judge(row)
        (lw, lk, _), (hw, hk) = min(row["langbench"]), min(row["by_hand"])
        print(f"| {row['variant']} | {lw:.3f} | {hw:.3f} | {row['wall_ratio']:.2f} | {lk / 1024:.0f} | "
              f"{hk / 1024:.0f} | {row['rss_ratio']:.2f} | {'; '.join(row['notes'])} |")


def save(path, rows):
    """Writes the rows so far: a sitting cut short keeps what it measured."""
    if path:
        with open(path + ".tmp", "w") as f:
            json.dump(rows, f, indent=1)
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
