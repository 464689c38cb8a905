/* shard.c - `nqueens count N --shard I/K`: one of K deterministic parts of n's plan.
 *
 * A shard is a set of task indices of the plan (solver.h). The plan is cut into blocks of B
 * consecutive tasks, B = nq_count_block(tasks, K) (32 or more blocks a shard; 1 for short plans),
 * and the blocks are dealt out in turn: shard I of K holds the tasks i with (i / B) % K == I. Dealt
 * rather than split by estimated cost, because it needs nothing but the plan's length (the library
 * publishes no per-task cost, and a cost model would be one more thing every machine must agree on),
 * it is stable for a given plan version, and interleaving spreads the plan's drift of cost along its
 * indices over every shard alike: from measured task times at n = 19 the costliest of 64 shards
 * holds 2% more work than the mean, where 64 contiguous parts would differ by 53%
 * (docs/performance.md). Blocks rather than single tasks because neighbouring tasks share tables a
 * worker keeps (solver.h, nq_count_block): at n = 23 a shard of 1024 costs 122 CPU s as single
 * tasks 1024 apart and 97 s in blocks. When K exceeds the plan's tasks some shards are empty:
 * they still print a document (done 0, sums 0), so `--sum` sees all K and a batch system need not
 * know the plan's length. Every document ends in its check value (cli.h), since shards travel
 * through `kubectl logs`, batch systems' output files and shell redirections before --sum reads them.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "check_value.h"
#include "nqueens/version.h"

const char *nq_cli_release(void)
{
    return nq_version(); /* the library's, which is the project's */
}

uint32_t nq_cli_shard_tasks(uint32_t tasks, uint32_t shard, uint32_t shards, uint8_t *todo)
{
    if (todo != NULL) memset(todo, 0, tasks);
    if (shard >= shards) return 0;
    const uint64_t block = nq_count_block(tasks, shards);
    uint64_t mine = 0;
    for (uint64_t first = shard * block; first < tasks; first += shards * block) { /* blocks I, I + K, ... */
        const uint64_t len = tasks - first < block ? tasks - first : block;        /* the last one may be short */
        if (todo != NULL) memset(todo + first, 1, len);
        mine += len;
    }
    return (uint32_t)mine;
}

nq_err nq_cli_shard_count(const nq_cli_opts *opts, nq_count_ctl *ctl, nq_json_shard *out)
{
    uint32_t tasks = 0;
    nq_err rc = nq_count_plan(opts->n, &tasks);
    if (rc != NQ_OK) return rc;
    uint8_t *todo = malloc(tasks);
    if (todo == NULL) return NQ_E_NOMEM;
    const uint32_t mine = nq_cli_shard_tasks(tasks, opts->shard, opts->shards, todo);
    nq_count_sums sums = {0, 0};
    /* An empty shard counts nothing (nq_count_tasks would still build the method's tables). */
    if (mine > 0) rc = nq_count_tasks_sum(opts->n, opts->threads, todo, ctl, &sums);
    free(todo);
    *out = (nq_json_shard){.n = opts->n,
                           .shard = opts->shard,
                           .shards = opts->shards,
                           .block = nq_count_block(tasks, opts->shards),
                           .method = nq_count_method(opts->n),
                           .release = nq_cli_release(),
                           .plan = NQ_COUNT_PLAN_VERSION,
                           .tasks = tasks,
                           .done = mine,
                           .sums = sums};
    return rc;
}

nq_err nq_cli_shard_render(const nq_json_shard *s, char *out, size_t cap, size_t *len)
{
    size_t body = 0;
    const nq_err rc = nq_json_count_shard(s, out, cap, &body); /* {...,"burnside":..} */
    if (rc != NQ_OK) return rc;
    if (cap - body < NQ_CLI_CHECK_LEN) return NQ_E_BUFSIZE;
    const uint32_t check = nq_check_value(out, body);
    char member[NQ_CLI_CHECK_LEN + 2u]; /* the member, the closing brace and snprintf's NUL */
    (void)snprintf(member, sizeof member, NQ_CLI_CHECK_MEMBER "%08lx\"}", (unsigned long)check);
    memcpy(out + body - 1u, member, NQ_CLI_CHECK_LEN + 1u); /* over the closing brace */
    *len = body + NQ_CLI_CHECK_LEN;
    return NQ_OK;
}
