/* cpus.h - how many CPUs this process may really use: what a count should run on.
 *
 * Why not sysconf(_SC_NPROCESSORS_ONLN): it counts the host's CPUs. In a container limited to 2 CPUs
 * on a 64-CPU node, a count would start 64 threads that the kernel's CPU quota lets run for 2 CPUs'
 * worth of each period: no faster than 2 threads, with 62 more stacks, and each period's quota spent
 * in a burst after which the whole container, probes included, waits for the next period.
 *
 * The answer is the CPUs in the process's affinity mask (nq_count_cpus: taskset, docker
 * --cpuset-cpus, Kubernetes' static CPU manager), capped by the tightest CPU quota on the process's
 * cgroup and the ancestors it can see (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us:
 * Kubernetes CPU limits, docker --cpus), rounded up, and at least 1. The cgroup files are found
 * through /proc/self/mountinfo, as the kernel mounted them. A container with its own cgroup namespace
 * sees its own group only: a limit set on its pod alone is not seen. It is read once, at start-up: a
 * quota changed later (in-place resize) applies from the next start.
 *
 * Thread-safety: reentrant. Failure: whatever cannot be read imposes no cap (no cgroup files: no
 * quota; no affinity mask: the online CPUs).
 */
#ifndef NQ_CPUS_H
#define NQ_CPUS_H

/* CPUs this process may use, as above; at least 1. */
unsigned nq_cpus_available(void);

/* The quota part alone: the CPUs the tightest quota allows (quota / period, rounded up), from the
 * process's groups in proc_self_cgroup (normally "/proc/self/cgroup") and the cgroup mounts in
 * proc_self_mountinfo (normally "/proc/self/mountinfo"). 0 when no quota applies or nothing could
 * be read. */
unsigned nq_cpus_quota(const char *proc_self_cgroup, const char *proc_self_mountinfo);

#endif /* NQ_CPUS_H */
