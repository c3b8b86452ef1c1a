#!/usr/bin/env python3
"""Which normaliser adds the least noise (issue #60): candidates for a
cell's figure, each computed on the edition and on every stored
re-measure from the records alone, set side by side.

A normaliser turns a cell's counted runs (the warm ones when it has two,
as noise.rs counts them) into one figure: its *ratio* to the reference
set (c-gcc, c-tcc: the geometric mean of their levels, each the median of
its reference passes in that directory) or, for the raw candidates,
seconds. A good one gives a row the same figure when it is measured
again. Per test set, both sides computed the same way, the script prints
the rows within 5 % (|log ratio| <= log 1.05, as `reproduce` counts),
the 90th percentile of |difference| (nearest rank, as `reproduce` states
it: with 24 rows the 22nd value, so one row sets it) and the median
|difference|; the same-CPU checks pooled; and within the edition the
spread of each cell's runs as the candidate normalises them (their CV;
a cell's rounds ran in different sittings).

Test sets, found under results/ (`--check DIR` adds or replaces one);
rows are those of each check's reproduced.json:

- `other boot 12-07`: results/reproduce-2026-12-07, the same 8 variants
  (seed 20261205) in another boot of the edition's CPU model;
- `same boot 12-05`: results/reproduce-2026-12-05, a later sitting of the
  edition's boot;
- `sittings 12-02`: results/2026-sittings, the edition as first published
  in another boot of the same CPU model, every cell, 3 runs in a row and
  no reference passes: its side is always its best run over its
  reference cells' best (seconds: its best run), so it ranks the edition
  side's estimators only;
- `xeon (another CPU)`: results/reproduce-2026-12-05-xeon: portability,
  not precision (not pooled; seconds not compared).

Candidates, an estimator of the host's speed per run, then `/best` (the
fastest normalised run) or `/gm` (their geometric mean):

- `published`: the reference passes interpolated to each run's time
  (issue #39's normaliser);
- `raw-best`, `raw-gm` (seconds) and `raw-best-x-ref` (over the
  directory's reference level: no correction in time);
- `pass-window-1h`: the median of the session's passes within an hour of
  the run (several passes standing in for several runs per pass);
- `pass-median3`: the passes smoothed by a running median of three, then
  interpolated;
- `session-median`: the median of the session's passes (one speed per
  sitting; what langbench uses since issue #60);
- `session-trend`: a Theil-Sen line through the session's passes;
- `cells-block`, `cells-session`: the common mode of the cells' own runs,
  per benchmark (log wall = cell + host of the session's block, or of the
  session, fitted by median polish, the reference passes as two more
  cells), the ratio over the reference cells' fitted level; in the CV
  column each cell is left out of the fit that normalises it.

    python3 benches/normalisers.py [--markdown] [--per-bench] [--check DIR]

Stdlib only; reads runs.jsonl, references.jsonl, sessions.jsonl. A few
seconds on stored records.
"""
import argparse
import collections
import datetime
import json
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFS = ("c-gcc", "c-tcc")
BENCHES = ("assoc", "num-comb", "str-comb")
WITHIN = 0.05


def read_jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def stamp(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def midpoint(r):
    return stamp(r["finished_at"]) - r["wall_s"] / 2.0


def gmean(v):
    v = [x for x in v if x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else None


def counted(runs):
    """The warm runs when at least two are and a cold one exists (noise.rs)."""
    warm = [r for r in runs if r.get("cache") != "cold"]
    return warm if len(warm) >= 2 and len(warm) < len(runs) else runs


class Dir:
    """A results directory's records: each cell's newest runs with figures,
    the reference passes, the sessions."""

    def __init__(self, path):
        self.path = path
        self.sessions = read_jsonl(os.path.join(path, "sessions.jsonl"))
        order = {s["session"]: i for i, s in enumerate(self.sessions)}
        runs = read_jsonl(os.path.join(path, "runs.jsonl"))
        # store.rs newest_runs: a cell's newest session, with the sessions
        # its runs continue.
        newest = {}
        for r in runs:
            k = (r["variant"], r["bench"])
            age = order.get(r["session"], len(order))
            if k not in newest or age >= newest[k][0]:
                newest[k] = (age, r["session"])
        links = {((r["variant"], r["bench"]), r["session"]): r["continues"]
                 for r in runs if r.get("continues")}
        shown = {}
        for k, (_, s) in newest.items():
            chain = [s]
            while (k, chain[-1]) in links and links[(k, chain[-1])] not in chain:
                chain.append(links[(k, chain[-1])])
            shown[k] = set(chain)
        self.cells = collections.defaultdict(list)
        for r in runs:
            k = (r["variant"], r["bench"])
            if r["session"] in shown[k] and r["status"] == "ok" and r["wall_s"] > 0:
                self.cells[k].append(r)
        self.refs = [r for r in read_jsonl(os.path.join(path, "references.jsonl"))
                     if r["status"] == "ok" and r["wall_s"] > 0 and r["variant"] in REFS]
        walls = collections.defaultdict(list)
        for r in self.refs:
            walls[(r["bench"], r["variant"])].append(r["wall_s"])
        self.ref_level = {k: statistics.median(v) for k, v in walls.items()}
        self.level = {}
        for b in BENCHES:
            lv = [v for (bb, _), v in self.ref_level.items() if bb == b]
            if lv:
                self.level[b] = gmean(lv)
        # Passes: (session, bench) -> [(t, speed, block)], speed relative
        # to the references' levels (reference.rs HostSpeed::of).
        grouped = collections.defaultdict(list)
        for r in self.refs:
            grouped[(r["session"], r["bench"], r.get("block") or 0)].append(r)
        self.passes = collections.defaultdict(list)
        for (s, b, block), rs in grouped.items():
            speed = gmean([r["wall_s"] / self.ref_level[(b, r["variant"])] for r in rs])
            t = sum(map(midpoint, rs)) / len(rs)
            self.passes[(s, b)].append((t, speed, block))
        for v in self.passes.values():
            v.sort()

    def has_passes(self):
        return bool(self.passes)

    def cpu(self):
        for s in self.sessions:
            m = s.get("machine", {})
            if m.get("cpu_id"):
                return m["cpu_id"]
        return (self.sessions[0].get("machine", {}).get("cpu_model", "?")
                if self.sessions else "?")


# ---------------------------------------------------------------- estimators
# Each estimator is built once per directory and returns speed(run) -> the
# host's speed at that run relative to the directory's median state
# (1.2: 20 % slower), or None.

def interpolate(points, t):
    """Geometric interpolation between (t, speed) points, the nearest's
    outside them (reference.rs speed_at)."""
    for i, (tt, sp) in enumerate(points):
        if tt >= t:
            if i == 0:
                return sp
            a_t, a_sp = points[i - 1]
            f = (t - a_t) / (tt - a_t) if tt > a_t else 0.5
            return math.exp(math.log(a_sp) * (1 - f) + math.log(sp) * f)
    return points[-1][1]


def est_none(d):
    return lambda r: 1.0


def est_interp(d):
    def speed(r):
        p = d.passes.get((r["session"], r["bench"]))
        return interpolate([(t, s) for t, s, _ in p], midpoint(r)) if p else None
    return speed


def est_window(hours):
    def build(d):
        def speed(r):
            p = d.passes.get((r["session"], r["bench"]))
            if not p:
                return None
            t = midpoint(r)
            near = [s for tt, s, _ in p if abs(tt - t) <= hours * 3600]
            if not near:  # the nearest pass
                near = [min(p, key=lambda x: abs(x[0] - t))[1]]
            return statistics.median(near)
        return speed
    return build


def est_median3(d):
    smooth = {}
    for k, p in d.passes.items():
        pts = []
        for i, (t, _, _) in enumerate(p):
            win = [x[1] for x in p[max(0, i - 1):i + 2]]
            pts.append((t, statistics.median(win)))
        smooth[k] = pts

    def speed(r):
        p = smooth.get((r["session"], r["bench"]))
        return interpolate(p, midpoint(r)) if p else None
    return speed


def est_session_median(d):
    med = {k: statistics.median([s for _, s, _ in p]) for k, p in d.passes.items()}
    return lambda r: med.get((r["session"], r["bench"]))


def est_trend(d):
    """A robust straight line through each session's passes (log speed
    against time, Theil-Sen: the median of the pairwise slopes)."""
    lines = {}
    for k, p in d.passes.items():
        slopes = [(math.log(b[1]) - math.log(a[1])) / (b[0] - a[0])
                  for i, a in enumerate(p) for b in p[i + 1:] if b[0] > a[0]]
        slope = statistics.median(slopes) if slopes else 0.0
        t0 = statistics.median([t for t, _, _ in p])
        icept = statistics.median([math.log(s) - slope * (t - t0) for t, s, _ in p])
        lines[k] = (slope, t0, icept)

    def speed(r):
        line = lines.get((r["session"], r["bench"]))
        if line is None:
            return None
        slope, t0, icept = line
        return math.exp(icept + slope * (midpoint(r) - t0))
    return speed


def median_polish(points, rounds=10):
    """points: [(row, col, y)]. Fits y = row + col + e with medians
    (Tukey's median polish, columns centred on 0). Returns (rows, cols)."""
    rows = collections.defaultdict(float)
    cols = collections.defaultdict(float)
    for _ in range(rounds):
        by_row = collections.defaultdict(list)
        for r, c, y in points:
            by_row[r].append(y - cols[c])
        rows = {r: statistics.median(v) for r, v in by_row.items()}
        by_col = collections.defaultdict(list)
        for r, c, y in points:
            by_col[c].append(y - rows[r])
        cols = {c: statistics.median(v) for c, v in by_col.items()}
        centre = statistics.median(cols.values())
        cols = {c: v - centre for c, v in cols.items()}
        cols = collections.defaultdict(float, cols)
    return rows, cols


def fit_cells(d, by_block, exclude=None):
    """Per benchmark, log wall = cell + host(group) by median polish over
    the cells' runs (all but `exclude`) and the reference passes as two
    more cells. Returns {bench: (cell levels, group hosts)}."""
    def group(r, block):
        return (r["session"], block if by_block else 0)
    host = {}
    for b in BENCHES:
        pts = []
        for (v, bb), runs in d.cells.items():
            if bb != b or (v, bb) == exclude:
                continue
            for r in runs:
                pts.append(((v, "cell"), group(r, r.get("block") or 0), math.log(r["wall_s"])))
        for r in d.refs:
            if r["bench"] != b:
                continue
            k = r.get("block") or 0
            # Pass k ends block k and starts block k + 1: both.
            for blk in ({k, k + 1} if by_block else {0}):
                pts.append(((r["variant"], "ref"), group(r, blk), math.log(r["wall_s"])))
        if pts:
            host[b] = median_polish(pts)
    return host, group


def est_cells(by_block):
    """The common mode of the cells' own runs (and the reference passes as
    cells), per benchmark, per session block (or per session)."""
    def build(d, exclude=None):
        host, group = fit_cells(d, by_block, exclude)
        if exclude is None:
            d.cells_fit = getattr(d, "cells_fit", {})
            d.cells_fit[by_block] = host

        def speed(r):
            fit = host.get(r["bench"])
            if fit is None:
                return None
            g = group(r, r.get("block") or 0)
            return math.exp(fit[1][g]) if g in fit[1] else 1.0
        return speed
    build.by_block = by_block
    return build


# ---------------------------------------------------------------- candidates

class Candidate:
    def __init__(self, name, estimator, aggregate, unit, needs_passes):
        self.name = name
        self.estimator = estimator
        self.aggregate = aggregate  # "best" or "gm"
        self.unit = unit  # "x-ref" or "s"
        self.needs_passes = needs_passes
        self._built = {}

    def speed(self, d):
        if d.path not in self._built:
            self._built[d.path] = self.estimator(d)
        return self._built[d.path]

    def runs(self, d, cell):
        """The cell's normalised runs (seconds at the median state) that
        its figure aggregates."""
        speed = self.speed(d)
        runs = d.cells.get(cell, [])
        runs = counted(runs)
        out = []
        for r in runs:
            s = speed(r)
            if s is None or s <= 0:
                return None
            out.append(r["wall_s"] / s)
        return out or None

    def figure(self, d, cell):
        v = self.runs(d, cell)
        if not v:
            return None
        x = {"best": min, "gm": gmean, "median": statistics.median}[self.aggregate](v)
        if self.unit == "s":
            return x
        return x / self.denominator(d, cell[1])

    def denominator(self, d, bench):
        by_block = getattr(self.estimator, "by_block", None)
        if by_block is not None:
            self.speed(d)
            # The reference cells' fitted level (seconds at the median state).
            rows = d.cells_fit[by_block][bench][0]
            return gmean([math.exp(rows[(v, "ref")]) for v in REFS if (v, "ref") in rows])
        return d.level.get(bench)


def candidates():
    c = [
        Candidate("published", est_interp, "gm", "x-ref", True),
        Candidate("published/best", est_interp, "best", "x-ref", True),
        Candidate("raw-best", est_none, "best", "s", False),
        Candidate("raw-gm", est_none, "gm", "s", False),
        Candidate("raw-best-x-ref", est_none, "best", "x-ref", True),
        Candidate("pass-window-1h/gm", est_window(1.0), "gm", "x-ref", True),
        Candidate("pass-window-1h/best", est_window(1.0), "best", "x-ref", True),
        Candidate("pass-median3/gm", est_median3, "gm", "x-ref", True),
        Candidate("pass-median3/best", est_median3, "best", "x-ref", True),
        Candidate("session-median/gm", est_session_median, "gm", "x-ref", True),
        Candidate("session-median/best", est_session_median, "best", "x-ref", True),
        Candidate("session-median/median", est_session_median, "median", "x-ref", True),
        Candidate("session-trend/gm", est_trend, "gm", "x-ref", True),
        Candidate("session-trend/best", est_trend, "best", "x-ref", True),
        Candidate("cells-block/gm", est_cells(True), "gm", "x-ref", True),
        Candidate("cells-block/best", est_cells(True), "best", "x-ref", True),
        Candidate("cells-session/gm", est_cells(False), "gm", "x-ref", True),
        Candidate("cells-session/best", est_cells(False), "best", "x-ref", True),
    ]
    return c


# ---------------------------------------------------------------- evaluation

def shift_removed(diffs):
    """Each benchmark's median shift taken out (what no normaliser of one
    side can see: the whole benchmark moved between the two)."""
    med = {b: statistics.median([math.log(x) for bb, x in diffs if bb == b])
           for b in {b for b, _ in diffs}}
    return [(b, math.exp(math.log(x) - med[b])) for b, x in diffs]


def agreement(diffs):
    """diffs: [(bench, ratio check/edition)] -> within, n, p90, median."""
    a = sorted(abs(math.log(x)) for _, x in diffs)
    if not a:
        return None
    within = sum(1 for x in a if x <= math.log(1 + WITHIN) + 1e-12)
    k = min(max(math.ceil(0.9 * len(a)), 1), len(a))
    return within, len(a), math.exp(a[k - 1]) - 1, math.exp(statistics.median(a)) - 1


def sittings_side(d, cell, unit):
    """A directory without passes: best of its runs, over the reference
    cells' bests (or seconds)."""
    best = lambda k: min((r["wall_s"] for r in d.cells.get(k, [])), default=None)
    x = best(cell)
    if x is None:
        return None
    if unit == "s":
        return x
    refs = [best((v, cell[1])) for v in REFS]
    refs = [r for r in refs if r]
    return x / gmean(refs) if refs else None


def evaluate(cand, edition, check, rows):
    diffs = []
    for cell in rows:
        e = cand.figure(edition, cell)
        if check.has_passes() or not cand.needs_passes:
            c = cand.figure(check, cell) if check.has_passes() else None
            if c is None and not check.has_passes():
                c = sittings_side(check, cell, cand.unit)
        else:
            c = sittings_side(check, cell, cand.unit)
        if e and c:
            diffs.append((cell[1], c / e))
    return diffs


def dispersion(cand, d):
    """Within a directory: each cell's counted runs normalised, their CV
    (sample sd over mean); median, p90 and share over 5 % over cells."""
    cvs = []
    loo = getattr(cand.estimator, "by_block", None) is not None
    for cell, runs in d.cells.items():
        # A fit from the cells' own runs is judged on cells it did not see
        # (left out one at a time): in-sample, a block with one run would
        # take that run's noise as the host's.
        speed = cand.estimator(d, exclude=cell) if loo else cand.speed(d)
        v = []
        for r in counted(runs):
            s = speed(r)
            if s is None:
                v = None
                break
            v.append(r["wall_s"] / s)
        if v and len(v) >= 2:
            cvs.append(statistics.stdev(v) / statistics.mean(v))
    if not cvs:
        return None
    cvs.sort()
    k = min(max(math.ceil(0.9 * len(cvs)), 1), len(cvs))
    return statistics.median(cvs), cvs[k - 1], sum(1 for x in cvs if x > 0.05), len(cvs)


def rows_of(check_path):
    """The rows of a stored check (its reproduced.json), else None."""
    rj = os.path.join(check_path, "reproduced.json")
    if os.path.exists(rj):
        with open(rj) as f:
            return [tuple(r["variant"].rsplit(" ", 1)) for r in json.load(f)["rows"]]
    return None


def fmt(a):
    if a is None:
        return "–"
    w, n, p90, med = a
    return f"{w}/{n} · {p90 * 100:.1f} % · {med * 100:.1f} %"


def table(header, lines, markdown):
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(l) + " |" for l in lines]
    else:
        widths = [max(len(x[i]) for x in [header] + lines) for i in range(len(header))]
        out = ["  ".join(x.ljust(w) for x, w in zip(l, widths)).rstrip() for l in [header] + lines]
    print("\n".join(out))


# The stored test sets, in the order shown, with what each measures.
KNOWN = [
    ("reproduce-2026-12-07", "other boot 12-07"),
    ("reproduce-2026-12-05", "same boot 12-05"),
    ("2026-sittings", "sittings 12-02"),
    ("reproduce-2026-12-05-xeon", "xeon (another CPU)"),
]


def test_sets(args, edition):
    """(label, Dir, rows) per test set: the stored ones found under
    results/, then each --check not among them."""
    r = os.path.join(ROOT, "results")
    labels = dict(KNOWN)
    named = [(label, os.path.join(r, name)) for name, label in KNOWN]
    for p in args.check:
        name = os.path.basename(os.path.normpath(p))
        named = [(l, q) for l, q in named if os.path.basename(q) != name]
        named.append((labels.get(name, name), p))
    named.sort(key=lambda x: [l for _, l in KNOWN].index(x[0]) if x[0] in labels.values() else 99)
    same_rows = rows_of(os.path.join(r, "reproduce-2026-12-05"))
    sets = []
    for label, path in named:
        if not os.path.isdir(path):
            continue
        d = Dir(path)
        rows = rows_of(path)
        if rows is None:
            if d.has_passes():  # a check still running, or not stored
                rows = sorted(k for k in d.cells if k in edition.cells)
            else:
                # Without passes its reference cells are the denominators.
                every = sorted(k for k in d.cells if k in edition.cells and k[0] not in REFS)
                if same_rows:
                    sets.append((label + ", 24 rows", d, [k for k in same_rows if k in every]))
                    label += ", all cells"
                rows = every
        sets.append((label, d, rows))
    return sets


def pooled(sets, edition):
    """The checks that measure precision: with passes, on the edition's CPU
    model."""
    return [label for label, d, _ in sets if d.has_passes() and d.cpu() == edition.cpu()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edition", default=os.path.join(ROOT, "results", "2026"))
    ap.add_argument("--check", action="append", default=[],
                    help="another check's results directory (repeatable), beside the stored ones")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables")
    ap.add_argument("--per-bench", action="store_true",
                    help="per test set, also each benchmark and with its shift removed")
    args = ap.parse_args()

    edition = Dir(args.edition)
    sets = test_sets(args, edition)
    cands = candidates()
    print(f"edition {os.path.relpath(edition.path, ROOT)} ({edition.cpu()}). Per test set: "
          f"rows within 5 % · p90 |diff| (nearest rank) · median |diff|.")
    for label, d, rows in sets:
        print(f"- {label}: {os.path.relpath(d.path, ROOT)} ({d.cpu()}), {len(rows)} rows"
              + ("" if d.has_passes() else "; no reference passes: its side is the "
                 "best run over its reference cells' best (seconds: the best run)"))
    print()
    results = {}
    for cand in cands:
        for label, d, rows in sets:
            if cand.unit == "s" and d.cpu() != edition.cpu():
                continue  # seconds do not compare across CPU models
            results[(cand.name, label)] = evaluate(cand, edition, d, rows)
    pool = pooled(sets, edition)
    header = ["candidate"] + [label for label, _, _ in sets] + [
        "pooled same-CPU checks (" + str(len(pool)) + ")", "edition: cells' CV median · p90 · over 5 %"]
    lines = []
    for cand in cands:
        line = [cand.name]
        for label, _, _ in sets:
            diffs = results.get((cand.name, label))
            line.append("(seconds)" if diffs is None else fmt(agreement(diffs)))
        line.append(fmt(agreement([x for label in pool for x in results.get((cand.name, label), [])])))
        disp = dispersion(cand, edition)
        line.append("–" if disp is None else
                    f"{disp[0] * 100:.1f} % · {disp[1] * 100:.1f} % · {disp[2]}/{disp[3]}")
        lines.append(line)
    table(header, lines, args.markdown)
    if args.per_bench:
        for label, _, _ in sets:
            print(f"\n{label}: per benchmark, and every row with each benchmark's median shift removed")
            header = ["candidate"] + list(BENCHES) + ["shift removed"]
            lines = []
            for cand in cands:
                diffs = results.get((cand.name, label))
                if diffs is None:
                    continue
                lines.append([cand.name]
                             + [fmt(agreement([x for x in diffs if x[0] == b])) for b in BENCHES]
                             + [fmt(agreement(shift_removed(diffs)))])
            table(header, lines, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
