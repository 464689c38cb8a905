/* count_workers.c - worker threads and Burnside's lemma for the table counters (count_workers.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "count_workers.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

int nq_count_cpus(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    const long online = sysconf(_SC_NPROCESSORS_ONLN); /* more CPUs than a cpu_set_t holds */
    return online < 1 ? 1 : online > INT_MAX ? INT_MAX : (int)online;
}

void nq_count_helpers_run(void *(*fn)(void *), void *arg, int threads)
{
    pthread_t helpers[NQ_COUNT_WORKERS_MAX - 1];
    int started = 0;
    while (started < threads - 1 && started < NQ_COUNT_WORKERS_MAX - 1 &&
           pthread_create(&helpers[started], NULL, fn, arg) == 0)
        started++;
    fn(arg);
    for (int i = 0; i < started; i++) pthread_join(helpers[i], NULL);
}

nq_err nq_count_workers_run(int n, int threads, void *(*fn)(void *), void *arg, atomic_bool *stop, atomic_bool *nomem,
                            nq_count_ctl *ctl, uint64_t *quarter, uint64_t *half)
{
    pthread_t tids[NQ_COUNT_WORKERS_MAX];
    int started = 0;
    nq_err err = NQ_OK;
    for (; started < threads && started < NQ_COUNT_WORKERS_MAX; started++) {
        if (pthread_create(&tids[started], NULL, fn, arg) != 0) {
            err = NQ_E_THREAD;
            break;
        }
    }
    if (err == NQ_OK && quarter != NULL && half != NULL) err = nq_count_symmetric(n, ctl, quarter, half);
    if (err != NQ_OK) atomic_store(stop, true);
    for (int i = 0; i < started; i++) pthread_join(tids[i], NULL);
    if (err == NQ_OK && atomic_load(nomem)) err = NQ_E_NOMEM;
    if (err == NQ_OK && atomic_load(stop)) err = NQ_E_CANCELED;
    return err;
}

nq_counts nq_count_burnside(uint64_t total, uint64_t quarter, uint64_t half)
{
    const nq_counts c = {total, (total + 2u * quarter + half) / 8u};
    return c;
}
