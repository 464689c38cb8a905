#!/usr/bin/env python3
"""stalled_readers.py - the memory worst case, measured: clients that stop reading, on every route
with large answers, as many as the connection limit lets in, against the settings of
deploy/overlays/single/statefulset.yaml (the pod of both Kubernetes overlays).

    bench/http/stalled_readers.py build-h4/src/server/nqueensd     measure, print one JSON line
    LONG_COUNT=0 bench/http/stalled_readers.py ...                   without the long count beside them
    NQUEENSD_MAX_PINNED_BYTES=64G bench/http/stalled_readers.py ...  a variable of the caller's wins
    MALLOC_MMAP_THRESHOLD_= bench/http/stalled_readers.py ...        (an empty one removes it)

The server runs with the manifest's NQUEENSD_* variables (read from
deploy/overlays/single/statefulset.yaml; the store in a temporary directory, the port chosen by the
kernel). It opens conn-limit - 4 connections (4 are kept for the probe and the scrapes), 16 at a
time, each with a 4 KiB receive buffer; each sends one request of the mix below, reads the head of its
answer and stops reading. The mix, one in each of these in turn:

    /solution?n=1000000&method=random&seed=<each its own>          a 6.9 MB entry each (cached, evicted)
    /solution?n=<max-n-solution>&method=construct                   one cached 6.9 MB entry for all
    /solve?n=14&limit=100000&offset=<each its own>&format=board     a 24 MB page: streamed
    /solve?n=14&limit=100000&offset=<each its own>&format=columns   a 4.5 MB page each (cached)
    /solve?n=12 (gzip)                                              one cached 2.6 MB entry for all
    /trace?n=16&limit=100000&from=<each its own>                    a 6 MB page each
    /solve?n=14&limit=100000&offset=<...>&format=board, gzip        a stream compressed as it goes

When all are in, it reads VmRSS and /metrics (nqueensd_pinned_bytes and the refusals); then, unless
LONG_COUNT is 0, it asks for a long count of n = LONG_COUNT (19, the manifest's --max-n-count, the
largest working set the configuration allows) and waits for it to finish, all readers still in place;
then it reads the peak RSS (VmHWM of /proc/<pid>/status), closes every reader, and waits for
nqueensd_pinned_bytes to return to 0. The answer statuses are counted: a 503 is the pinned budget (or the worker queue)
refusing, which is what a bound does. Prints one JSON line. Needs Linux (/proc) and Python 3.8+.
"""

import concurrent.futures
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

MANIFEST = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "overlays", "single",
                        "statefulset.yaml")
RCVBUF = 4096
KINDS = ["solution random", "solution construct", "solve board", "solve columns", "solve n=12 gzip", "trace",
         "solve board gzip"]


def manifest_env(path):
    """The NQUEENSD_* and MALLOC_* name/value pairs of the manifest's container."""
    text = open(path, encoding="utf-8").read()
    pairs = re.findall(r'- name: ((?:NQUEENSD|MALLOC)_[A-Z_]+)\s*\n\s*value: "?([^"\n]*)"?', text)
    return dict(pairs)


def limit_bytes(path):
    m = re.search(r"limits:\s*\n(?:\s+cpu:.*\n)?\s+memory: (\d+)Mi", open(path, encoding="utf-8").read())
    return int(m.group(1)) * 1024 * 1024 if m else None


def status_kib(pid, field):
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def metrics(port):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30).read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#") and "{" not in line:
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def target(i, max_n_solution):
    kind = i % 7
    k = i // 7
    if kind == 0:
        return f"/solution?n=1000000&method=random&seed={k + 1}", False
    if kind == 1:
        return f"/solution?n={max_n_solution}&method=construct", False
    if kind == 2:
        return f"/solve?n=14&limit=100000&offset={k}&format=board", False
    if kind == 3:
        return f"/solve?n=14&limit=100000&offset={k}&format=columns", False
    if kind == 4:
        return "/solve?n=12", True
    if kind == 5:
        return f"/trace?n=16&limit=100000&from={(k * 7919) % 2000000}", False
    return f"/solve?n=14&limit=100000&offset={1000 + k}&format=board", True


def stall(port, i, path, gzip):
    """Connect (from 127.0.0.2 and up: one address may hold only part of the connections), ask, read
    the head's first bytes, stop reading. Returns (socket, status)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    s.settimeout(300)
    s.bind((f"127.0.0.{2 + i % 8}", 0))
    s.connect(("127.0.0.1", port))
    enc = "Accept-Encoding: gzip\r\n" if gzip else ""
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\n{enc}\r\n".encode())
    head = s.recv(512)
    m = re.match(rb"HTTP/1\.1 (\d{3})", head)
    return s, int(m.group(1)) if m else 0


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: stalled_readers.py path/to/nqueensd")
    binary = sys.argv[1]
    long_n = int(os.environ.get("LONG_COUNT", "19"))
    env = manifest_env(MANIFEST)
    limit = limit_bytes(MANIFEST)
    conn_limit = int(env.get("NQUEENSD_CONN_LIMIT", "4096"))
    work = tempfile.mkdtemp()
    env.update({"NQUEENSD_STORE": os.path.join(work, "nqueens.db"), "NQUEENSD_PORT": "0",
                "NQUEENSD_BIND": "127.0.0.1", "NQUEENSD_IDLE_TIMEOUT_S": "600",
                "NQUEENSD_QUEUE_LEN": "1024", "NQUEENSD_DEADLINE_MS": "120000"})
    log = open(os.path.join(work, "log"), "w+")
    # PATH, and any NQUEENSD_* or MALLOC_* of the caller's, which override the manifest's.
    passed = {k: v for k, v in os.environ.items() if k == "PATH" or k.startswith(("MALLOC_", "NQUEENSD_"))}
    env = {k: v for k, v in {**env, **passed}.items() if v != ""}  # an empty one removes the variable
    proc = subprocess.Popen([binary], env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    port = None
    for _ in range(600):
        log.seek(0)
        m = re.search(r'"msg":"listening".*?"port":(\d+)', log.read())
        if m:
            port = int(m.group(1))
            break
        time.sleep(0.05)
    if port is None:
        proc.kill()
        sys.exit("nqueensd did not start")
    max_n_solution = int(env.get("NQUEENSD_MAX_N_SOLUTION", "1000000"))
    urllib.request.urlopen(f"http://127.0.0.1:{port}/count?n=14", timeout=120).read()  # totals for /solve
    base = status_kib(proc.pid, "VmRSS")
    readers, statuses = [], {}
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:  # a few computing at once
        answers = pool.map(lambda i: (i % 7, *stall(port, i, *target(i, max_n_solution))), range(conn_limit - 4))
        for kind, s, status in answers:
            readers.append(s)
            route = KINDS[kind]
            statuses.setdefault(route, {})
            statuses[route][status] = statuses[route].get(status, 0) + 1
    time.sleep(2)  # the last streams fill their socket buffers
    m = metrics(port)
    rss = status_kib(proc.pid, "VmRSS")
    count_s = None
    if long_n:  # with every reader in place, the largest count the configuration allows, to its end
        t1 = time.time()
        while time.time() - t1 < float(os.environ.get("LONG_COUNT_MAX_S", "1800")):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/count?n={long_n}", timeout=30) as r:
                    if r.status == 200:
                        count_s = round(time.time() - t1, 1)
                        break
            except urllib.error.HTTPError:
                pass  # 503 while it runs (or its waiters are full): ask again
            time.sleep(1)
    hwm = status_kib(proc.pid, "VmHWM")
    for s in readers:
        s.close()
    pinned_after = None
    for _ in range(600):
        pinned_after = metrics(port).get("nqueensd_pinned_bytes")
        if pinned_after == 0:
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)  # a long count would otherwise hold the drain
    proc.wait()
    print(json.dumps({
        "readers": len(readers), "statuses": statuses, "seconds_to_stall": round(time.time() - t0, 1),
        "long_count_n": long_n, "long_count_s": count_s, "rss_before_mib": round(base / 1024, 1), "rss_mib": round(rss / 1024, 1),
        "rss_peak_mib": round(hwm / 1024, 1), "limit_mib": limit and limit // (1 << 20),
        "pinned_bytes": m.get("nqueensd_pinned_bytes"), "pinned_max": m.get("nqueensd_pinned_bytes_max"),
        "pinned_refused": m.get("nqueensd_pinned_refused_total"), "gzip_streams": m.get("nqueensd_gzip_streams"),
        "cache_bytes": m.get("nqueensd_cache_bytes"), "pinned_after_close": pinned_after}))
    ok = limit is None or hwm * 1024 < limit
    sys.exit(0 if ok and pinned_after == 0 else 1)


if __name__ == "__main__":
    main()
