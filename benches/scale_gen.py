#!/usr/bin/env python3
"""Synthetic results directories for the scale bench (issue #41).

Copies results/2020, 2021 and 2026 with every variant and all its records K
times under new ids (`ID-kN`, N = 1..K; the first copy keeps its own id), so
that a directory holds about --variants variants (K = the nearest whole
multiple of 2026's variant count), with a languages.toml whose variant
entries are copied the same way and the programs/ they read. Each copy's
records are byte-for-byte the original's but for the variant id; its
session records list the copies beside the original, as a session that
measured them all would.

    python3 benches/scale_gen.py OUT --variants 6500 [--shards 10]

OUT gets: languages.toml, programs/, results/{2020,2021,2026} (records
only: `report` writes the derived files) and, with --shards N, results/
shards/1..N: 2026's variants dealt round-robin, each shard with the session
records of its variants (what `run --shard K/N` on N machines leaves, for
`merge`). Run the commands from OUT (the reports read ./languages.toml).
"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EDITIONS = ["2020", "2021", "2026"]


def copy_id(vid, k):
    return vid if k == 0 else f"{vid}-k{k}"


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def write(path, records):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def this_machine(recorded):
    """`recorded` (a session's machine) as this machine: the generated
    directory stands for one measured here, or `run --resume` and its
    --plan refuse it as another machine's (results/2026 was measured on an
    AMD EPYC; the bench and CI's smoke run wherever they are). The fields
    `langbench`'s Machine::same_as compares, read as Machine::detect reads
    them (written again here: no langbench command prints the machine
    without measuring); an empty cpu_id matches any CPU identity, so a
    difference in how the two read the cache size cannot refuse it.
    `resumable` fails loudly if they ever disagree."""
    def field(path, key, sep=":"):
        try:
            with open(path) as f:
                for line in f:
                    k, _, v = line.partition(sep)
                    if k.strip() == key:
                        return v.strip()
        except OSError:
            pass
        return None
    with open("/proc/cpuinfo") as f:
        cpus = sum(1 for l in f if l.startswith("processor")) or 1
    mem = field("/proc/meminfo", "MemTotal")
    os_name = field("/etc/os-release", "PRETTY_NAME", "=")
    return dict(recorded,
                cpu_model=field("/proc/cpuinfo", "model name") or field("/proc/cpuinfo", "Model")
                or "unknown",
                cpu_id="", cpus=cpus, usable_cpus=len(os.sched_getaffinity(0)),
                memory_kb=int(mem.split()[0]) if mem else 0,
                os=os_name.strip('"') if os_name else "linux",
                kernel=platform.release(), arch=platform.machine())


def here(sessions):
    """Every measured session's machine made [`this_machine`] (an imported
    edition's stays its publisher's)."""
    return [dict(s, machine=this_machine(s["machine"]))
            if "machine" in s and s.get("origin", "measured") == "measured" else s
            for s in sessions]


def scale(runs, sessions, k):
    """Every run K times under new ids, in the original order per copy; each
    session's variants list the copies beside the original."""
    out_runs = [dict(r, variant=copy_id(r["variant"], c)) for c in range(k) for r in runs]
    out_sessions = []
    for s in sessions:
        vs = s.get("variants") or []
        s = dict(s, variants=[dict(v, id=copy_id(v["id"], c)) for c in range(k) for v in vs])
        out_sessions.append(s)
    return out_runs, out_sessions


HEADER = re.compile(r'^\[variant\.("[^"]+"|[A-Za-z0-9_-]+)(\.[^\]]*)?\]\s*$')


def languages(text, k, measured):
    """languages.toml with the [variant.ID...] blocks of 2026's variants
    that `run --resume` would leave alone, each copied K times (the copies drop `aliases`, which must be
    unique, and name their original's flags). The others are left out: ws servers have program paths named
    after their id, and a variant `run --resume` would run again (not
    installed, its program changed since) would give it something to do."""
    head, blocks, cur = [], [], None
    for line in text.splitlines(keepends=True):
        m = HEADER.match(line)
        if line.startswith("[") and not m:
            cur = None
        if m:
            vid = m.group(1).strip('"')
            if cur is None or cur[0] != vid:
                cur = [vid, []]
                blocks.append(cur)
            cur[1].append((m.group(2) or "", []))
            continue
        if cur is None:
            head.append(line)
        else:
            cur[1][-1][1].append(line)
    # Blocks are moved after the non-variant text (TOML tables may be in
    # any order).
    out = ["".join(head)]
    for c in range(k):
        for vid, parts in blocks:
            if vid not in measured:
                continue
            nid = copy_id(vid, c)
            for sub, body in parts:
                out.append(f'[variant."{nid}"{sub}]\n')
                # `flags` defaults to the id, and the commands and needs
                # to the flags: a copy names its original's.
                if c and not sub and not any(l.startswith("flags") for l in body):
                    out.append(f'flags = "{vid}"\n')
                out.extend(l for l in body if not (c and l.startswith("aliases")))
    return "".join(out)


def resumable(langbench):
    """The variants `run --resume` would leave alone in results/2026 (every
    cell done, program and commands unchanged), as its --plan says."""
    with tempfile.TemporaryDirectory() as t:
        shutil.copytree(f"{ROOT}/results/2026", f"{t}/2026")
        write(f"{t}/2026/sessions.jsonl", here(lines(f"{t}/2026/sessions.jsonl")))
        plan = json.loads(subprocess.run(
            [langbench, "run", "--resume", "--plan", "--json", "--size", "2021",
             "--out", f"{t}/2026"], cwd=ROOT, check=True, capture_output=True).stdout)
    return {v["id"] for s in plan["shards"] for v in s["variants"]
            if all(c["done"] for c in v["cells"])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--variants", type=int, default=650)
    ap.add_argument("--shards", type=int, default=0)
    ap.add_argument("--langbench", default=f"{ROOT}/target/release/langbench")
    a = ap.parse_args()
    base = {v: (lines(f"{ROOT}/results/{v}/runs.jsonl"),
                here(lines(f"{ROOT}/results/{v}/sessions.jsonl"))) for v in EDITIONS}
    n = len({r["variant"] for r in base["2026"][0]})
    k = max(1, round(a.variants / n))
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    shutil.copytree(f"{ROOT}/programs", f"{a.out}/programs")
    with open(f"{ROOT}/languages.toml") as f:
        text = f.read()
    with open(f"{a.out}/languages.toml", "w") as f:
        # Every variant of 2026's records, not only those `run --resume`
        # would leave alone: since runs are sealed (issue #59 row 4), an
        # unsealed published run is never left alone, and scale.py times
        # no --resume for now.
        f.write(languages(text, k, {r["variant"] for r in base["2026"][0]}))
    for ed, (runs, sessions) in base.items():
        r, s = scale(runs, sessions, k)
        write(f"{a.out}/results/{ed}/runs.jsonl", r)
        write(f"{a.out}/results/{ed}/sessions.jsonl", s)
    if a.shards:
        runs, sessions = scale(*base["2026"], k)
        ids = sorted({r["variant"] for r in runs})
        shard_of = {v: i % a.shards for i, v in enumerate(ids)}
        for i in range(a.shards):
            mine = [r for r in runs if shard_of[r["variant"]] == i]
            used = {r["session"] for r in mine}
            ss = [dict(s, variants=[v for v in s["variants"] if shard_of.get(v["id"]) == i])
                  for s in sessions if s["session"] in used]
            write(f"{a.out}/results/shards/{i + 1}/runs.jsonl", mine)
            write(f"{a.out}/results/shards/{i + 1}/sessions.jsonl", ss)
    total = sum(len(scale(*b, k)[0]) for b in base.values())
    print(f"{a.out}: {n * k} variants in 2026 ({n} x {k}), {total} run records in 3 editions")


if __name__ == "__main__":
    main()
