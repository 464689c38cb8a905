/* sum.c - `nqueens count N --sum FILE...`: add up the shards of a count spread over machines.
 *
 * Shard files are read strictly, as the exact bytes `count N --shard I/K` prints (a shard document,
 * cli.h: nqueens/json.h's shard object, members in its order, then the check value; no whitespace,
 * one optional final newline): the sums are 64-bit integers beyond the 2^53 a double holds exactly,
 * which a general JSON parser (cJSON, jq) would round. Strict bytes refuse nearly every re-written
 * document, and the check value (the CRC-32 of the document without it) every digit changed on the
 * way: shards travel through `kubectl logs`, batch systems' output files and redirections. A
 * document without a check value (an older release's) is refused unless the user says to take it
 * (--accept-unchecked). Each shard is then checked against the plan this tool counts with (n, plan
 * version, tasks, method, the block length the plan is dealt in), against itself (sums that fit
 * each other) and against the others (one K, one release, each shard once, each holding its share
 * of the tasks), so a missing, repeated or foreign shard can never give a wrong count silently; and
 * the whole is held against n's known counts (nq_count_known, solver.h), which catches what a check value
 * cannot: sums edited with the check recomputed, or counted wrong by a faulty machine.
 */
#include "cli.h"

#include "check_value.h"
#include "nqueens/parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SHARD_FILE_MAX (NQ_CLI_SHARD_MAX + 1u) /* the document and its newline */
#define MISSING_LISTED 8                       /* missing shards named in the refusal */

/* A shard document read back, with room for its labels. */
typedef struct shard_doc {
    nq_json_shard s;                      /* the fields; s.method and s.release point below */
    char method[NQ_JSON_LABEL_MAX + 1u];  /* NUL-terminated */
    char release[NQ_JSON_LABEL_MAX + 1u]; /* NUL-terminated */
    bool has_check;                       /* it ends in a check value */
    bool check_ok;                        /* ... and that value is its bytes' */
} shard_doc;

/* A cursor over a document's bytes. */
typedef struct reader {
    const char *p;   /* next byte */
    const char *end; /* one past the last */
} reader;

static bool expect(reader *r, const char *lit)
{
    const size_t len = strlen(lit);
    if ((size_t)(r->end - r->p) < len || memcmp(r->p, lit, len) != 0) return false;
    r->p += len;
    return true;
}

/* A decimal integer in 0..max as the renderer writes it: digits, no leading zero. */
static bool number(reader *r, uint64_t max, uint64_t *out)
{
    const char *start = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    const size_t len = (size_t)(r->p - start);
    if (len == 0 || (len > 1 && start[0] == '0')) return false;
    return nq_parse_u64(start, len, max, out) == NQ_OK;
}

static bool member_u32(reader *r, const char *lit, uint32_t *out)
{
    uint64_t v = 0;
    if (!expect(r, lit) || !number(r, UINT32_MAX, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

/* "label": up to NQ_JSON_LABEL_MAX bytes up to the closing quote; nq_json_count_shard's rule on the
 * bytes is applied by re-rendering (see parse_doc). */
static bool label(reader *r, const char *lit, char *out)
{
    if (!expect(r, lit)) return false;
    size_t k = 0;
    while (r->p < r->end && *r->p != '"') {
        if (k == NQ_JSON_LABEL_MAX) return false;
        out[k++] = *r->p++;
    }
    out[k] = '\0';
    return expect(r, "\"");
}

/* The document's fields, in the renderer's order. */
static bool read_fields(reader *r, shard_doc *d)
{
    uint64_t n = 0;
    if (!expect(r, "{\"n\":") || !number(r, NQ_COUNT_N_MAX, &n)) return false;
    d->s.n = (int)n;
    return member_u32(r, ",\"shard\":", &d->s.shard) && member_u32(r, ",\"shards\":", &d->s.shards) &&
           member_u32(r, ",\"block\":", &d->s.block) && label(r, ",\"method\":\"", d->method) &&
           label(r, ",\"release\":\"", d->release) && member_u32(r, ",\"plan\":", &d->s.plan) &&
           member_u32(r, ",\"tasks\":", &d->s.tasks) && member_u32(r, ",\"done\":", &d->s.done) &&
           expect(r, ",\"total\":") && number(r, UINT64_MAX, &d->s.sums.total) && expect(r, ",\"burnside\":") &&
           number(r, UINT64_MAX, &d->s.sums.burnside) && expect(r, "}");
}

/* The check member that ends text[0..len), if any: its value into *check, and true. */
static bool check_member(const char *text, size_t len, uint32_t *check)
{
    static const char member[] = NQ_CLI_CHECK_MEMBER;
    if (len < NQ_CLI_CHECK_LEN + 2u) return false; /* "{" before it and "}" after it */
    const char *at = text + len - 1u - NQ_CLI_CHECK_LEN;
    if (memcmp(at, member, sizeof member - 1u) != 0 || memcmp(text + len - 2u, "\"}", 2) != 0) return false;
    uint32_t v = 0;
    for (const char *h = at + sizeof member - 1u; h < text + len - 2u; h++) {
        const int digit = *h >= '0' && *h <= '9' ? *h - '0' : *h >= 'a' && *h <= 'f' ? *h - 'a' + 10 : -1;
        if (digit < 0) return false; /* lower-case hex only, as shard.c writes it */
        v = v * 16u + (uint32_t)digit;
    }
    *check = v;
    return true;
}

/* Parse text[0..len) into *d. The fields read, the document is rendered again and must come out
 * byte for byte the same: that applies every rule of the renderer (labels, ranges) in one place.
 * The check member, when there is one, is taken off first: what it checks is the rest, closed. */
static bool parse_doc(const char *text, size_t len, shard_doc *d)
{
    char body[NQ_JSON_SHARD_MAX];
    uint32_t check = 0;
    if (len > 0 && text[len - 1] == '\n') len--;
    memset(d, 0, sizeof *d);
    d->s.method = d->method;
    d->s.release = d->release;
    if (check_member(text, len, &check)) {
        len -= NQ_CLI_CHECK_LEN; /* up to the member, then its closing brace */
        if (len > sizeof body) return false;
        memcpy(body, text, len - 1u);
        body[len - 1u] = '}';
        text = body;
        d->has_check = true;
        d->check_ok = nq_check_value(body, len) == check;
    }
    reader r = {text, text + len};
    if (!read_fields(&r, d) || r.p != r.end) return false;
    char again[NQ_JSON_SHARD_MAX];
    size_t again_len = 0;
    return nq_json_count_shard(&d->s, again, sizeof again, &again_len) == NQ_OK && again_len == len &&
           memcmp(again, text, len) == 0;
}

/* Read the whole of path into buf[0..SHARD_FILE_MAX]; false (reported) when it cannot be read. *len
 * is SHARD_FILE_MAX + 1 for a file longer than any shard document. */
static bool slurp(const char *path, char *buf, size_t *len, FILE *err)
{
    char msg[128];
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        if (strerror_r(errno, msg, sizeof msg) != 0) msg[0] = '\0';
        fprintf(err, "nqueens: %s: cannot open: %s\n", path, msg);
        return false;
    }
    errno = 0;
    *len = fread(buf, 1, SHARD_FILE_MAX + 1u, f);
    const bool ok = !ferror(f);
    if (!ok && (errno == 0 || strerror_r(errno, msg, sizeof msg) != 0)) msg[0] = '\0';
    fclose(f);
    if (!ok) fprintf(err, "nqueens: %s: read error%s%s\n", path, msg[0] != '\0' ? ": " : "", msg);
    return ok;
}

/* The plan this tool counts n with, which every shard must have been counted with. */
typedef struct plan_ref {
    int n;              /* board size */
    uint32_t tasks;     /* nq_count_plan's */
    const char *method; /* nq_count_method's */
} plan_ref;

/* Do a shard's sums fit each other (nq_count_sums_fit)? A document edited or damaged on its way can
 * break them. Reports why not. */
static bool sums_agree(const shard_doc *d, const char *path, FILE *err)
{
    const nq_count_sums *sums = &d->s.sums;
    switch (nq_count_sums_fit(sums, d->s.done)) {
    case NQ_SUMS_FIT: return true;
    case NQ_SUMS_NO_TASKS:
        fprintf(err, "nqueens: %s: shard %u of %u holds no tasks but has non-zero sums\n", path, d->s.shard,
                d->s.shards);
        return false;
    default:
        fprintf(err, "nqueens: %s: shard %u of %u has a total of %llu above its Burnside sum %llu\n", path, d->s.shard,
                d->s.shards, (unsigned long long)sums->total, (unsigned long long)sums->burnside);
        return false;
    }
}

/* Is d a shard of ref's plan and of the same cut as first (NULL for the first file)? Reports why not. */
static bool fits(const shard_doc *d, const plan_ref *ref, const shard_doc *first, const char *path, FILE *err)
{
    if (d->s.n != ref->n) {
        fprintf(err, "nqueens: %s: a shard of n = %d, not %d\n", path, d->s.n, ref->n);
        return false;
    }
    if (d->s.plan != NQ_COUNT_PLAN_VERSION || d->s.tasks != ref->tasks || strcmp(d->method, ref->method) != 0) {
        fprintf(err, "nqueens: %s: counted by plan %u (%u tasks, method %s), this tool's is plan %u (%u tasks, %s)\n",
                path, d->s.plan, d->s.tasks, d->method, (unsigned)NQ_COUNT_PLAN_VERSION, ref->tasks, ref->method);
        return false;
    }
    if (d->s.shards > NQ_CLI_SHARDS_MAX) { /* --shard never makes one; and seen[] is K bytes */
        fprintf(err, "nqueens: %s: one of %u shards, more than --shard cuts (%u)\n", path, d->s.shards,
                NQ_CLI_SHARDS_MAX);
        return false;
    }
    if (first != NULL && d->s.shards != first->s.shards) {
        fprintf(err, "nqueens: %s: shard %u of %u, but the first file is one of %u\n", path, d->s.shard, d->s.shards,
                first->s.shards);
        return false;
    }
    if (first != NULL && strcmp(d->release, first->release) != 0) {
        fprintf(err, "nqueens: %s: counted by release %s, the first file by %s\n", path, d->release, first->release);
        return false;
    }
    const uint32_t block = nq_count_block(d->s.tasks, d->s.shards);
    if (d->s.block != block) {
        fprintf(err, "nqueens: %s: shard %u of %u dealt in blocks of %u tasks, this tool deals them in %u\n", path,
                d->s.shard, d->s.shards, d->s.block, block);
        return false;
    }
    const uint32_t want = nq_cli_shard_tasks(d->s.tasks, d->s.shard, d->s.shards, NULL);
    if (d->s.done != want) {
        fprintf(err, "nqueens: %s: shard %u of %u holds %u tasks, not the %u of its share\n", path, d->s.shard,
                d->s.shards, d->s.done, want);
        return false;
    }
    return sums_agree(d, path, err);
}

/* After every file: are all K shards there? Names the first few missing. */
static bool complete(const uint8_t *seen, uint32_t shards, size_t given, FILE *err)
{
    if (given == shards) return true;
    fprintf(err, "nqueens: %zu of %u shards given; missing:", given, shards);
    int listed = 0;
    for (uint32_t i = 0; i < shards && listed < MISSING_LISTED; i++)
        if (!seen[i]) {
            fprintf(err, " %u", i);
            listed++;
        }
    fputs(given + (size_t)listed < shards ? " ...\n" : "\n", err);
    return false;
}

/* acc += d's sums, refusing a wrap-around (no honest shards come near 2^64). */
static bool add_sums(nq_count_sums *acc, const shard_doc *d)
{
    return !__builtin_add_overflow(acc->total, d->s.sums.total, &acc->total) &&
           !__builtin_add_overflow(acc->burnside, d->s.sums.burnside, &acc->burnside);
}

/* The shards read so far. */
typedef struct summer {
    const plan_ref *ref;   /* the plan every shard must be of */
    bool accept_unchecked; /* --accept-unchecked: take documents without a check value */
    shard_doc first;       /* the first shard: K and the release the others must share */
    uint8_t *seen;         /* K flags, once the first is in */
    size_t given;          /* documents taken */
    size_t unchecked;      /* of them, without a check value (only with accept_unchecked) */
    nq_count_sums sum;     /* of every shard taken */
    FILE *err;             /* where refusals go */
} summer;

static const char not_the_line[] = "not the line `nqueens count N --shard I/K` prints";

/* Why text[0..len) (len <= SHARD_FILE_MAX + 1) is no shard document: the ways a good shard gets
 * spoilt on its way to --sum are named, so that the fix is plain; anything else is just not the
 * bytes --shard prints (not_the_line). */
static const char *unparsed_why(const char *text, size_t len)
{
    if (len == 0) return "empty (a shard that failed or was interrupted prints nothing)";
    if (memchr(text, '\0', len) != NULL) return "it holds a NUL byte, which no shard document does";
    for (size_t i = 0; i + 1 < len; i++)
        if (text[i] == '}' && text[i + 1] == '{')
            return "two documents on one line (a file without its final newline joined to the next: "
                   "join files with `awk 1`, not cat)";
    const char *nl = memchr(text, '\n', len);
    if (nl != NULL && nl > text && nl[-1] == '\r') return "its line ends in CR LF, a shard's in LF alone";
    if (nl != NULL && nl + 1 < text + len) return "more than one line (a file holds one shard)";
    return not_the_line;
}

/* Check one document, text[0..len) from `name`, and add it; NQ_CLI_EXIT_OK or why not (reported). */
static int take(summer *m, const char *text, size_t len, const char *name)
{
    shard_doc d;
    memset(&d, 0, sizeof d);
    const bool parsed = len <= SHARD_FILE_MAX && parse_doc(text, len, &d);
    const char *spoilt = parsed ? NULL : unparsed_why(text, len);
    /* A check value that is not its bytes': damaged, whether the fields still parse or not, unless a
     * named way of spoiling (two lines, CR LF, ...) says more. */
    if (d.has_check && !d.check_ok && (parsed || spoilt == not_the_line)) {
        fprintf(m->err, "nqueens: %s: a damaged shard document: its check value does not match its bytes\n", name);
        return NQ_CLI_EXIT_USAGE;
    }
    if (!parsed) {
        fprintf(m->err, "nqueens: %s: not a shard document: %s\n", name, spoilt);
        return NQ_CLI_EXIT_USAGE;
    }
    if (!d.has_check && !m->accept_unchecked) {
        fprintf(m->err,
                "nqueens: %s: shard %u of %u has no check value (an older release's, or it was removed), so "
                "damage in it cannot be found; --accept-unchecked takes it all the same\n",
                name, d.s.shard, d.s.shards);
        return NQ_CLI_EXIT_USAGE;
    }
    m->unchecked += !d.has_check;
    if (!fits(&d, m->ref, m->given == 0 ? NULL : &m->first, name, m->err)) return NQ_CLI_EXIT_USAGE;
    if (m->given == 0) {
        m->first = d;
        m->seen = calloc(d.s.shards, 1);
        if (m->seen == NULL) {
            fputs("nqueens: out of memory\n", m->err);
            return NQ_CLI_EXIT_FAILURE;
        }
    }
    if (m->seen[d.s.shard]) {
        fprintf(m->err, "nqueens: %s: shard %u of %u given twice\n", name, d.s.shard, d.s.shards);
        return NQ_CLI_EXIT_USAGE;
    }
    m->seen[d.s.shard] = 1;
    m->given++;
    if (!add_sums(&m->sum, &d)) {
        fprintf(m->err, "nqueens: %s: the sums overflow 64 bits: not shards of a count\n", name);
        return NQ_CLI_EXIT_USAGE;
    }
    return NQ_CLI_EXIT_OK;
}

/* One line of in, its newline included, into buf (SHARD_FILE_MAX + 1 bytes): false at the end of
 * the input. Every byte counts, a NUL too (which no document holds); *len is SHARD_FILE_MAX + 1 for
 * a line longer than any document, whose rest is then left unread (it is refused anyway). */
static bool read_line(FILE *in, char *buf, size_t *len)
{
    size_t k = 0;
    int c = EOF;
    flockfile(in);
    while (k <= SHARD_FILE_MAX && (c = getc_unlocked(in)) != EOF) {
        buf[k++] = (char)c;
        if (c == '\n') break;
    }
    funlockfile(in);
    *len = k;
    return k > 0;
}

/* Standard input: any number of documents, one a line, for more shards than a command line holds
 * (`find shards -name 'shard-*' -exec awk 1 {} + | nqueens count N --sum -`). Each is named "-:LINE"
 * in refusals. An empty line is no document and is skipped (a script's trailing `echo`). */
static int take_lines(summer *m, FILE *in)
{
    char buf[SHARD_FILE_MAX + 1u];
    char name[32];
    size_t len = 0;
    int status = NQ_CLI_EXIT_OK;
    for (unsigned long line = 1; status == NQ_CLI_EXIT_OK && read_line(in, buf, &len); line++) {
        if (len == 1 && buf[0] == '\n') continue;
        (void)snprintf(name, sizeof name, "-:%lu", line);
        status = take(m, buf, len, name);
    }
    if (status != NQ_CLI_EXIT_OK || !ferror(in)) return status;
    char msg[128];
    if (strerror_r(errno, msg, sizeof msg) != 0) msg[0] = '\0';
    fprintf(m->err, "nqueens: -: read error%s%s\n", msg[0] != '\0' ? ": " : "", msg);
    return NQ_CLI_EXIT_FAILURE;
}

/* Read, check and add the files; on success m->sum holds the total of every shard. */
static int read_all(const nq_cli_opts *opts, FILE *in, summer *m)
{
    char buf[SHARD_FILE_MAX + 1u];
    for (size_t f = 0; f < opts->nfiles; f++) {
        const char *path = opts->files[f];
        if (strcmp(path, "-") == 0) {
            const int status = take_lines(m, in);
            if (status != NQ_CLI_EXIT_OK) return status;
            continue;
        }
        size_t len = 0;
        if (!slurp(path, buf, &len, m->err)) return NQ_CLI_EXIT_FAILURE;
        const int status = take(m, buf, len, path);
        if (status != NQ_CLI_EXIT_OK) return status;
    }
    if (m->given == 0) { /* an empty standard input (a find that found nothing) */
        fputs("nqueens: no shard documents given\n", m->err);
        return NQ_CLI_EXIT_USAGE;
    }
    return complete(m->seen, m->first.s.shards, m->given, m->err) ? NQ_CLI_EXIT_OK : NQ_CLI_EXIT_USAGE;
}

/* Are counts n's known ones? Every shard's check value can be right and its sums fit each other and
 * the count still be wrong: sums edited with the check recomputed, or a machine that counted wrong.
 * Reports why not; which shard it was, no sum can tell. */
static bool as_known(int n, const nq_counts *counts, FILE *err)
{
    nq_counts known;
    if (!nq_count_known(n, &known) || (counts->total == known.total && counts->unique == known.unique)) return true;
    fprintf(err,
            "nqueens: the shards add up to total %llu and unique %llu, but n = %d has %llu and %llu (OEIS "
            "A000170, A002562): some shard's sums are wrong\n",
            (unsigned long long)counts->total, (unsigned long long)counts->unique, n, (unsigned long long)known.total,
            (unsigned long long)known.unique);
    return false;
}

int nq_cli_sum(const nq_cli_opts *opts, FILE *in, FILE *out, FILE *err)
{
    plan_ref ref = {.n = opts->n, .method = nq_count_method(opts->n)};
    if (nq_count_plan(opts->n, &ref.tasks) != NQ_OK || ref.method == NULL) {
        fputs("nqueens: no plan for this n\n", err);
        return NQ_CLI_EXIT_FAILURE;
    }
    if (opts->nfiles == 0) return NQ_CLI_EXIT_USAGE; /* nq_cli_parse refuses it first */
    summer m = {.ref = &ref, .accept_unchecked = opts->accept_unchecked, .first = {.s = {.shards = 1}}, .err = err};
    const int status = read_all(opts, in, &m);
    free(m.seen);
    if (status != NQ_CLI_EXIT_OK) return status;
    const nq_count_sums sum = m.sum;
    const nq_sums_fault fault = nq_count_sums_whole(&sum); /* each shard's sums fit: only these are left */
    if (fault != NQ_SUMS_FIT) {
        fputs(fault == NQ_SUMS_CLASSES_ABOVE
                  ? "nqueens: the shards' sums give more classes than solutions: not shards of a count\n"
                  : "nqueens: the shards' Burnside sums do not add up to whole classes: not shards of a count\n",
              err);
        return NQ_CLI_EXIT_USAGE;
    }
    const nq_counts counts = nq_count_sums_counts(&sum);
    if (!as_known(opts->n, &counts, err)) return NQ_CLI_EXIT_USAGE;
    if (m.unchecked > 0)
        fprintf(err, "nqueens: %zu of %zu shards had no check value and were taken as they are (--accept-unchecked)\n",
                m.unchecked, m.given);
    char text[NQ_JSON_COUNTS_MAX];
    size_t len = 0;
    if (nq_json_counts(opts->n, &counts, text, sizeof text, &len) != NQ_OK) {
        fputs("nqueens: cannot render the counts\n", err);
        return NQ_CLI_EXIT_FAILURE;
    }
    fwrite(text, 1, len, out);
    fputc('\n', out);
    if (fflush(out) != 0 || ferror(out)) {
        fputs("nqueens: write error on standard output\n", err);
        return NQ_CLI_EXIT_FAILURE;
    }
    return NQ_CLI_EXIT_OK;
}
