/* test_concurrent.c - many clients at once against one nqueensd: identical requests get identical
 * bytes whether they are computed, shared, served from the cache or streamed. Labelled concurrency,
 * so the ThreadSanitizer stage runs it against a TSan-built server. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strdup */
#endif
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "harness.h"

#define CLIENTS 8
#define ROUNDS 12

/* A 1 MiB cache takes entries up to 128 KiB: /solve?n=11 (about 360 KB) streams, n=9 is cached. */
static const char *const server_args[] = {"--cache-bytes", "1048576", "--max-solutions", "100000", NULL};
static nq_test_server server;

static const char *const targets[] = {"/count?n=9", "/solve?n=9", "/solve?n=11", "/solve?n=10&format=columns&limit=50",
                                      "/count?n=10"};
#define NTARGETS (sizeof targets / sizeof targets[0])

typedef struct client {
    const nq_test_server *srv;       /* the server under test */
    const char *reference[NTARGETS]; /* bodies fetched alone beforehand */
    int seed;                        /* which target to start with */
    int mismatches;                  /* bodies that differed, or failed requests */
} client;

static void *run_client(void *arg)
{
    client *c = arg;
    static const char *const gz[] = {"Accept-Encoding: gzip", NULL};
    for (int i = 0; i < ROUNDS; i++) {
        const size_t t = (size_t)(c->seed + i) % NTARGETS;
        nq_http_response r;
        const bool use_gzip = (i % 3) == 0;
        if (!nq_http_request(c->srv, "GET", targets[t], use_gzip ? gz : NULL, &r) || r.status != 200) {
            c->mismatches++;
            nq_http_response_free(&r);
            continue;
        }
        const char *body = r.body;
        char *plain = NULL;
        size_t len = r.body_len;
        if (nq_http_header_get(&r, "Content-Encoding")) {
            if (!nq_harness_gunzip(r.body, r.body_len, &plain, &len)) c->mismatches++;
            body = plain;
        }
        if (!body || len != strlen(c->reference[t]) || memcmp(body, c->reference[t], len) != 0) c->mismatches++;
        free(plain);
        nq_http_response_free(&r);
    }
    return NULL;
}

START_TEST(test_many_clients)
{
    nq_test_server fresh;
    ck_assert(nq_harness_start(&fresh, server_args, NULL)); /* a cold server: every answer computed once */
    /* References come from the warmed-up shared server, computed one at a time. */
    char *refs[NTARGETS];
    for (size_t t = 0; t < NTARGETS; t++) {
        nq_http_response r;
        ck_assert(nq_http_get(&server, targets[t], &r));
        ck_assert_int_eq(r.status, 200);
        refs[t] = strdup(r.body);
        nq_http_response_free(&r);
    }
    client clients[CLIENTS]; /* they hit the cold server, all at once */
    pthread_t threads[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        memset(&clients[i], 0, sizeof clients[i]);
        clients[i].srv = &fresh;
        for (size_t t = 0; t < NTARGETS; t++) clients[i].reference[t] = refs[t];
        clients[i].seed = i;
        ck_assert_int_eq(pthread_create(&threads[i], NULL, run_client, &clients[i]), 0);
    }
    int mismatches = 0;
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(threads[i], NULL);
        mismatches += clients[i].mismatches;
    }
    ck_assert_int_eq(mismatches, 0);
    ck_assert_int_eq(nq_harness_stop(&fresh, SIGTERM, 30), 0);
    for (size_t t = 0; t < NTARGETS; t++) free(refs[t]);
}
END_TEST

int main(void)
{
    if (!nq_harness_start(&server, server_args, NULL)) return EXIT_FAILURE;
    Suite *s = suite_create("http_concurrent");
    TCase *tc = tcase_create("concurrent");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_many_clients);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    const int status = nq_harness_stop(&server, SIGTERM, 30);
    return failed == 0 && status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
