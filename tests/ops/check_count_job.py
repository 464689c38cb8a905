#!/usr/bin/env python3
"""check_count_job.py - deploy/count-job.yaml is an Indexed Job whose pods, run as Kubernetes would
run them, make the shards of one count.

  check_count_job.py deploy/count-job.yaml PATH/TO/nqueens

No cluster is needed (nor is one at hand in CI): the manifest's fields that the shards depend on are
checked (kind, Indexed completion mode, completions == SHARDS, the failure policy on a usage error,
restartPolicy, a memory request that holds N's peak and a limit 15% above it), then the one
container's command is expanded for every completion index the way the kubelet expands $(VAR)
references, with N replaced by 13 so that it runs in a second, and run with the real CLI;
`nqueens count 13 --sum` over the outputs must print the OEIS counts.
"""
import math
import re
import subprocess
import sys
import tempfile

import yaml

SMALL_N = "13"
WANT = '{"n":13,"total":73712,"unique":9233}'


def fail(msg):
    print(f"FAIL: count-job.yaml: {msg}")
    sys.exit(1)


def cpu_cores(q):
    """A Kubernetes CPU quantity ("2", "500m") in cores."""
    q = str(q)
    return int(q[:-1]) / 1000 if q.endswith("m") else float(q)


def mib(q):
    """A Kubernetes memory quantity ("1Gi", "1.5Gi", "768Mi", "500M") in MiB."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?", str(q))
    if not m:
        fail(f"memory quantity {q!r} not understood")
    scale = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "Ti": 1024**2, "k": 1e3 / 2**20, "M": 1e6 / 2**20,
             "G": 1e9 / 2**20, "T": 1e12 / 2**20, None: 1 / 2**20}
    return float(m.group(1)) * scale[m.group(2)]


def peak_mib(n, threads):
    """A shard's peak resident memory at n (docs/distributed.md, "Memory by n"): measured with 2
    threads, plus each further thread's own halves of a column set."""
    if n <= 19:
        return 233
    if n >= 24:
        return 1024 + 40 * threads
    base, per_thread = {20: (502, 10), 21: (564, 10), 22: (825, 40), 23: (1729, 200)}[n]
    return base + per_thread * max(0, threads - 2)


def check_memory(c, n, threads):
    """The request must hold n's peak (the scheduler places pods by it) and the limit must hold it with
    headroom (an OOM-killed shard is retried, and fails alike)."""
    memory = {kind: c.get("resources", {}).get(kind, {}).get("memory") for kind in ("requests", "limits")}
    for kind, q in memory.items():
        if q is None:
            fail(f"no memory {kind[:-1]} on the container")
    limit, request = mib(memory["limits"]), mib(memory["requests"])
    peak = peak_mib(n, threads)
    if limit < peak * 1.15:
        fail(f"memory limit {memory['limits']} below n = {n}'s peak with 15% headroom ({peak * 1.15:.0f} MiB)")
    if request < peak:
        fail(f"memory request {memory['requests']} below n = {n}'s peak ({peak} MiB)")
    if request > limit:
        fail("memory request above the limit")


def expand(text, env):
    """Kubernetes' $(VAR) expansion: defined names are replaced, $$ is a literal $, others stay."""
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), m.group(0)), text)


def check_spec(job):
    if job.get("apiVersion") != "batch/v1" or job.get("kind") != "Job":
        fail("not a batch/v1 Job")
    spec = job["spec"]
    if spec.get("completionMode") != "Indexed":
        fail("completionMode is not Indexed")
    pod = spec["template"]["spec"]
    if pod.get("restartPolicy") != "Never":
        fail("restartPolicy must be Never (podFailurePolicy needs it)")
    containers = pod["containers"]
    if len(containers) != 1:
        fail("one container expected")
    c = containers[0]
    env = {e["name"]: e["value"] for e in c.get("env", []) if "value" in e}
    for e in c.get("env", []):  # the downward API: a CPU limit as whole cores, rounded up
        ref = e.get("valueFrom", {}).get("resourceFieldRef")
        if ref and ref.get("resource") == "limits.cpu":
            limit = cpu_cores(c["resources"]["limits"]["cpu"]) / cpu_cores(ref.get("divisor", "1"))
            env[e["name"]] = str(math.ceil(limit))
    # The CLI's default, --threads 0, is the CPUs the process may use, its cgroup's quota included: no
    # --threads (or 0) follows the container's CPU limit by itself; any other value must be that limit.
    threads = c["args"][c["args"].index("--threads") + 1] if "--threads" in c["args"] else "0"
    cores = str(math.ceil(cpu_cores(c["resources"]["limits"]["cpu"])))
    if expand(threads, env) not in ("0", cores):
        fail("--threads must follow the container's CPU limit (leave it out, or give 0)")
    check_memory(c, int(env["N"]), math.ceil(cpu_cores(c["resources"]["limits"]["cpu"])))
    if str(spec.get("completions")) != env.get("SHARDS"):
        fail(f"completions ({spec.get('completions')}) must equal SHARDS ({env.get('SHARDS')})")
    if int(spec.get("parallelism", 1)) > int(spec["completions"]):
        fail("parallelism above completions")
    rules = spec.get("podFailurePolicy", {}).get("rules", [])
    usage = [r for r in rules if r.get("action") == "FailJob" and 2 in r.get("onExitCodes", {}).get("values", [])]
    if not usage or usage[0]["onExitCodes"].get("containerName") != c["name"]:
        fail("exit 2 (usage error) must fail the Job, naming the container")
    if not any("JOB_COMPLETION_INDEX" in a for a in c["args"]):
        fail("the args do not use JOB_COMPLETION_INDEX")
    if pod.get("securityContext", {}).get("runAsNonRoot") is not True:
        fail("pods must run as non-root")
    return int(spec["completions"]), c, env


def main():
    manifest, cli = sys.argv[1], sys.argv[2]
    with open(manifest, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    if len(docs) != 1:
        fail(f"{len(docs)} documents, want 1")
    shards, c, env = check_spec(docs[0])
    env["N"] = SMALL_N
    if c["command"] != ["nqueens"]:
        fail(f"command {c['command']}, want ['nqueens']")
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for index in range(shards):
            args = [expand(a, dict(env, JOB_COMPLETION_INDEX=str(index))) for a in c["args"]]
            out = subprocess.run([cli] + args, capture_output=True, text=True, check=False)
            if out.returncode != 0:
                fail(f"pod {index}: nqueens {' '.join(args)} exited {out.returncode}: {out.stderr}")
            files.append(f"{tmp}/{index}.json")
            with open(files[-1], "w", encoding="utf-8") as f:
                f.write(out.stdout)
        out = subprocess.run([cli, "count", SMALL_N, "--sum"] + files, capture_output=True, text=True, check=False)
        if out.returncode != 0 or out.stdout.strip() != WANT:
            fail(f"the {shards} pods' shards sum to '{out.stdout.strip()}' ({out.stderr.strip()}), want {WANT}")
    print(f"count-job.yaml: {shards} indexed pods make the shards of one count")


if __name__ == "__main__":
    main()
