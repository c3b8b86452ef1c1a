#!/usr/bin/env python3
"""langbench's own overhead, side by side with /usr/bin/time in one run.

1. What one measured invocation costs: `/usr/bin/time CMD` against
   `langbench measure -- CMD` (contained, the default, and --no-sandbox),
   for `true` and a small real program. The invocations are interleaved
   (one of each per round, the order reversed every other round), so a
   machine that gets busier or quieter affects them alike. Each is timed
   from spawn to reaped (wall) and by its rusage (CPU of the invocation and
   everything it ran). Ratios are to /usr/bin/time running the same command;
   the issue's target is 1.5 or less.
2. What each tool reports for the same commands (median wall and peak RSS),
   including a program that touches 200 MB and a 4 KB static program whose
   peak RSS is the floor the measuring tool's fork leaves (when gcc is
   installed).

    cargo build --release && taskset -c 0 python3 benches/overhead.py [--rounds 300]

`--also PATH` (repeatable) puts another langbench binary beside this one
in both tables (e.g. the previous commit's build, or a static build), so a
before/after comparison runs side by side too.

Needs /usr/bin/time (Debian package `time`). Compare ratios, not absolute
figures: on a shared machine the wall medians include waiting for the CPU
(the CPU column is less sensitive to that).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LANGBENCH = os.path.join(ROOT, "target", "release", "langbench")
TIME = "/usr/bin/time"
WARMUP = 20


def program(name):
    """A real executable, not a wrapper script (pyenv puts a bash shim on
    PATH for python3, which would measure bash)."""
    for d in ("/usr/bin", "/bin"):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def invocations(cmd, binaries):
    """The invocations compared for one command: label, argv."""
    rows = [("/usr/bin/time", [TIME, "-f", "%e %M"] + cmd)]
    for name, exe in binaries:
        rows.append((f"{name} measure", [exe, "measure", "--"] + cmd))
        rows.append((f"{name} measure --no-sandbox", [exe, "measure", "--no-sandbox", "--"] + cmd))
    return rows


def interleaved(rows, rounds):
    """rows: [(label, argv)]; returns {label: (walls_ms, cpus_ms)}."""
    null = os.open(os.devnull, os.O_RDWR)
    actions = [(os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1),
               (os.POSIX_SPAWN_DUP2, null, 2)]
    out = {label: ([], []) for label, _ in rows}
    for i in range(WARMUP + rounds):
        order = rows if i % 2 == 0 else rows[::-1]
        for label, argv in order:
            t0 = time.perf_counter_ns()
            pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
            _, status, ru = os.wait4(pid, 0)
            t1 = time.perf_counter_ns()
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"{' '.join(argv)} failed ({status})")
            if i >= WARMUP:
                out[label][0].append((t1 - t0) / 1e6)
                out[label][1].append((ru.ru_utime + ru.ru_stime) * 1e3)
    os.close(null)
    return out


def p10(v):
    return sorted(v)[len(v) // 10]


def cost_table(commands, rounds, binaries):
    print(f"## Cost of one measured invocation ({rounds} interleaved rounds, "
          f"{WARMUP} warm-up)\n")
    print("| command | invocation | wall median | wall p10 | CPU mean "
          "| wall ratio | p10 ratio | CPU ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, cmd in commands:
        rows = invocations(cmd, binaries)
        res = interleaved(rows, rounds)
        base_w, base_c = res[rows[0][0]]
        bw, bp, bc = statistics.median(base_w), p10(base_w), statistics.mean(base_c)
        for label, _ in rows:
            w, c = res[label]
            mw, pw, mc = statistics.median(w), p10(w), statistics.mean(c)
            print(f"| `{name}` | `{label}` | {mw:.2f} ms | {pw:.2f} ms | {mc:.2f} ms "
                  f"| {mw / bw:.2f} | {pw / bp:.2f} | {mc / bc:.2f} |")


def gnu_time(cmd):
    r = subprocess.run([TIME, "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, check=True)
    wall, rss = r.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss)


def langbench(exe, cmd, extra=()):
    r = subprocess.run([exe, *extra, "measure", "--json", "--"] + cmd,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    j = json.loads(r.stdout)
    return j["wall_s"], j["max_rss_kb"]


def figures_table(commands, runs, binaries):
    print(f"\n## What each tool reports for the same command (median of {runs} runs)\n")
    tools = [("/usr/bin/time", gnu_time)]
    for name, exe in binaries:
        tools.append((name, lambda c, e=exe: langbench(e, c)))
        tools.append((f"{name} --no-sandbox", lambda c, e=exe: langbench(e, c, ["--no-sandbox"])))
    print("| command | " + " | ".join(f"{t} wall s, RSS KB" for t, _ in tools) + " |")
    print("|---|" + "---:|" * len(tools))
    for name, cmd in commands:
        got = [[] for _ in tools]
        for _ in range(runs):
            for i, (_, f) in enumerate(tools):
                got[i].append(f(cmd))
        cells = []
        for v in got:
            wall = statistics.median(x[0] for x in v)
            rss = statistics.median(x[1] for x in v)
            cells.append(f"{wall:.3f}, {rss:,.0f}")
        print(f"| `{name}` | " + " | ".join(cells) + " |")


def tiny_static(dir):
    """A static program that exits at once: its peak RSS is what the
    measuring tool's fork leaves behind (the floor of every figure)."""
    gcc = shutil.which("gcc")
    if not gcc:
        return None
    src, exe = os.path.join(dir, "tiny.c"), os.path.join(dir, "tiny")
    with open(src, "w") as f:
        f.write('void _start(void) { __asm__ volatile("mov $60, %eax; xor %edi, %edi; syscall"); }\n')
    r = subprocess.run([gcc, "-O2", "-static", "-nostdlib", "-o", exe, src])
    return exe if r.returncode == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=300,
                    help="interleaved rounds of the cost table")
    ap.add_argument("--runs", type=int, default=5, help="runs per figure of the second table")
    ap.add_argument("--also", action="append", default=[], metavar="PATH",
                    help="another langbench binary to compare (repeatable)")
    a = ap.parse_args()
    if not os.path.exists(LANGBENCH):
        sys.exit("build first: cargo build --release")
    binaries = [("langbench", LANGBENCH)] + [(p, p) for p in a.also]
    python = program("python3")
    print(f"langbench: {LANGBENCH}; CPUs allowed: {sorted(os.sched_getaffinity(0))}; "
          f"load average: {os.getloadavg()[0]:.2f}\n")
    cost_table([("true", [program("true")]),
                ("python3 -c pass", [python, "-c", "pass"])], a.rounds, binaries)
    with tempfile.TemporaryDirectory() as d:
        commands = []
        tiny = tiny_static(d)
        if tiny:
            commands.append(("4 KB static program", [tiny]))
        numbers = os.path.join(d, "numbers")
        with open(numbers, "w") as f:
            f.writelines(f"{(i * 7919) % 1000003}\n" for i in range(1_000_000))
        commands += [
            ("true", [program("true")]),
            ("python3 -c pass", [python, "-c", "pass"]),
            ("sort -n, 1M lines", [program("sort"), "-n", "-o", os.devnull, numbers]),
            ("python3 touching 200 MB", [python, "-c",
                "b = bytearray(200 * 1024 * 1024)\nfor i in range(0, len(b), 4096): b[i] = 1"]),
        ]
        figures_table(commands, a.runs, binaries)


if __name__ == "__main__":
    main()
