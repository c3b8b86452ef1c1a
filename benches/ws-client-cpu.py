#!/usr/bin/env python3
"""The load client's own cost: client CPU µs per echo at 10,000 connections /
1 ms, pinned (server on CPU 0, client on CPU 1), against nbio and Bun, side
by side in one run with the minimal reference client (src/minimal.rs of
ws-client-crates) and two tokio crates.

    (cd benches/ws-client-crates && cargo build --release)
    python3 benches/ws-client-cpu.py [--rounds 3] [--connections 10000] [--delay 1] [--seconds 5]

Clients run one after another against the same server, in a rotated order
each round; the ratio langbench / minimal is taken per round and server
(paired: same server process, minutes apart), then summarised as median
and range. Needs go (builds nbio) and bun; taskset; a 2+ CPU machine.
Performance targets are ratios measured side by side, never absolute
figures: the machine may be shared.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATE = os.path.join(ROOT, "benches", "ws-client-crates")
BIN = os.environ.get("WS_CLIENT_BENCH") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR", os.path.join(CRATE, "target")), "release", "ws-client-crates")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, proc, timeout=30):
    t = time.time()
    while time.time() - t < timeout:
        if proc.poll() is not None:
            sys.exit(f"server exited: {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit("server did not listen")


def servers(tmp):
    nbio = os.path.join(tmp, "nbio-echo")
    subprocess.run(["go", "build", "-o", nbio, "."], cwd=os.path.join(ROOT, "programs/ws-echo/go-nbio"), check=True)
    return {
        "nbio": lambda port: [nbio, str(port)],
        "bun": lambda port: ["bun", os.path.join(ROOT, "programs/ws-echo/bun/ws_echo.js"), str(port)],
    }


def server_cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--connections", type=int, default=10000)
    ap.add_argument("--delay", default="1")
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--clients", default="minimal,langbench,tungstenite,tokio-websockets")
    ap.add_argument("--servers", default="nbio,bun")
    ap.add_argument("--json", help="also write every run here")
    a = ap.parse_args()
    if not os.path.exists(BIN):
        sys.exit(f"build the bench first: (cd {CRATE} && cargo build --release)")
    clients = a.clients.split(",")
    tmp = tempfile.mkdtemp(prefix="ws-client-cpu-")
    runs = []
    try:
        make = servers(tmp)
        for r in range(a.rounds):
            order = clients[r % len(clients):] + clients[:r % len(clients)]
            for name in a.servers.split(","):
                port = free_port()
                srv = subprocess.Popen(["taskset", "-c", "0"] + make[name](port),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    wait_port(port, srv)
                    for c in order:
                        load = os.getloadavg()[0]
                        s0 = server_cpu_s(srv.pid)
                        p = subprocess.run(["taskset", "-c", "1", BIN, c, f"127.0.0.1:{port}",
                                            str(a.connections), a.delay, str(a.seconds)],
                                           capture_output=True, text=True, timeout=300)
                        s1 = server_cpu_s(srv.pid)
                        line = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
                        if not line:
                            print(f"round {r+1} {name} {c}: FAILED {p.stderr[-300:]}", file=sys.stderr)
                            continue
                        res = json.loads(line[0][7:])
                        res.update(round=r + 1, server=name, load1=load)
                        runs.append(res)
                        print(f"round {r+1} {name:5} {c:17} {res['cpu_us_per_echo']:6.2f} µs/echo (user {res['user_us_per_echo']:5.2f})  "
                              f"{res['rps']:8.0f} echoes/s  p50 {res['p50_ms']:7.2f} ms  p99 {res['p99_ms']:7.2f} ms  "
                              f"errors {res['errors']}  server ~{s1 - s0:.1f} CPU s  load {load:.2f}", flush=True)
                        time.sleep(1)
                finally:
                    srv.terminate()
                    try:
                        srv.wait(5)
                    except subprocess.TimeoutExpired:
                        srv.kill()
                        srv.wait()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(runs, f, indent=1)
    print(f"\nclient CPU µs per echo, {a.connections} connections, delay {a.delay} ms, "
          f"server on CPU 0, client on CPU 1 (median [min–max] of {a.rounds} rounds)")
    for name in a.servers.split(","):
        for c in clients:
            v = [x["cpu_us_per_echo"] for x in runs if x["server"] == name and x["client"] == c]
            rps = [x["rps"] for x in runs if x["server"] == name and x["client"] == c]
            u = [x["user_us_per_echo"] for x in runs if x["server"] == name and x["client"] == c]
            if v:
                print(f"  {name:5} {c:17} {statistics.median(v):6.2f} [{min(v):.2f}–{max(v):.2f}]"
                      f"  user {statistics.median(u):5.2f} [{min(u):.2f}–{max(u):.2f}]"
                      f"  {statistics.median(rps):8.0f} echoes/s")
        ratios = []
        for r in range(1, a.rounds + 1):
            got = {x["client"]: x["cpu_us_per_echo"] for x in runs if x["server"] == name and x["round"] == r}
            if "langbench" in got and "minimal" in got:
                ratios.append(got["langbench"] / got["minimal"])
        if ratios:
            print(f"  {name:5} ratio langbench / minimal: median {statistics.median(ratios):.3f} "
                  f"[{min(ratios):.3f}–{max(ratios):.3f}] (target ≤ 1.15)")
    loads = [x["load1"] for x in runs]
    if loads:
        print(f"  1-minute load average during the runs: {min(loads):.2f}–{max(loads):.2f}")


if __name__ == "__main__":
    main()
