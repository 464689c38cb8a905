/* harness.c - run the real nqueensd and talk HTTP to it (see harness.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* mkstemps (glibc), plus POSIX: kill, nanosleep, strndup */
#endif
#include "harness.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define ZLIB_CONST /* next_in is a pointer to const */
#include <zlib.h>

#ifndef NQ_TEST_NQUEENSD
#error "NQ_TEST_NQUEENSD must name the nqueensd binary (set by CMake)"
#endif

#define BODY_CAP ((size_t)1 << 30) /* largest body a test may receive */
#define ARGS_MAX 64

extern char **environ;

void nq_harness_sleep_ms(unsigned ms)
{
    const struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

char *nq_harness_log(const nq_test_server *s)
{
    FILE *f = fopen(s->log_path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (len < cap - 1) break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

/* The port of the start-up line in the log, or 0 while it is not there yet. */
static uint16_t listening_port(const nq_test_server *s)
{
    char *log = nq_harness_log(s);
    if (!log) return 0;
    uint16_t port = 0;
    for (char *line = log; line && *line;) {
        char *nl = strchr(line, '\n');
        if (!nl) break; /* only complete lines */
        *nl = '\0';
        const char *p = strstr(line, "\"port\":");
        if (strstr(line, "\"msg\":\"listening\"") && p) {
            char *end = NULL;
            const long v = strtol(p + 7, &end, 10);
            if (end != p + 7 && v > 0 && v < 65536) port = (uint16_t)v;
            break;
        }
        line = nl + 1;
    }
    free(log);
    return port;
}

/* In the child: execve wants mutable strings, so the arguments are copied (the process image is
 * replaced right after, so nothing is freed). */
static void exec_server(int fd, const char *const *args, const char *const *env)
{
    /* No store unless the test names one: tests must not share a file in the working directory. */
    static const char *const fixed[] = {NQ_TEST_NQUEENSD, "--port", "0", "--bind", "127.0.0.1", "--store", "none"};
    char *argv[ARGS_MAX];
    size_t a = 0;
    for (; a < sizeof fixed / sizeof fixed[0]; a++) argv[a] = strdup(fixed[a]);
    for (size_t i = 0; args && args[i] && a < ARGS_MAX - 1; i++) argv[a++] = strdup(args[i]);
    argv[a] = NULL;
    size_t n = 0, e = 0;
    while (environ[n]) n++;
    for (size_t i = 0; env && env[i]; i++) e++;
    char **envp = calloc(n + e + 1, sizeof *envp);
    if (!envp) _exit(127);
    for (size_t i = 0; i < n; i++) envp[i] = environ[i];
    for (size_t i = 0; i < e; i++) envp[n + i] = strdup(env[i]);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* a test that fails or times out leaves no server behind */
    execve(NQ_TEST_NQUEENSD, argv, envp);
    _exit(127);
}

bool nq_harness_start(nq_test_server *s, const char *const *args, const char *const *env)
{
    memset(s, 0, sizeof *s);
    /* libcurl's global state, set up here, before a test starts client threads (reference counted,
     * so calling it per server is fine; the process exit releases it). */
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return false;
    snprintf(s->log_path, sizeof s->log_path, "/tmp/nqueensd-test-XXXXXX");
    const int fd = mkstemp(s->log_path);
    if (fd < 0) return false;
    const pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        return false;
    }
    if (pid == 0) exec_server(fd, args, env);
    close(fd);
    s->pid = pid;
    for (int i = 0; i < 3000; i++) { /* 60 s: a sanitizer build on a loaded machine starts slowly */
        s->port = listening_port(s);
        if (s->port) break;
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            s->pid = 0;
            break;
        }
        nq_harness_sleep_ms(20);
    }
    if (!s->port) {
        char *log = nq_harness_log(s);
        fprintf(stderr, "harness: nqueensd did not start; its output:\n%s\n", log ? log : "(none)");
        free(log);
        nq_harness_stop(s, SIGKILL, 1);
        return false;
    }
    snprintf(s->base, sizeof s->base, "http://127.0.0.1:%u", (unsigned)s->port);
    return true;
}

int nq_harness_stop(nq_test_server *s, int sig, unsigned timeout_s)
{
    int result = -1;
    if (s->pid > 0) {
        kill(s->pid, sig);
        int status = 0;
        pid_t r = 0;
        for (unsigned i = 0; i < timeout_s * 50u && (r = waitpid(s->pid, &status, WNOHANG)) == 0; i++)
            nq_harness_sleep_ms(20);
        if (r == 0) {
            fprintf(stderr, "harness: nqueensd did not exit within %u s; killing it\n", timeout_s);
            kill(s->pid, SIGKILL);
            r = waitpid(s->pid, &status, 0);
        }
        if (r == s->pid) result = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        s->pid = 0;
    }
    /* A stop that was asked to be graceful and was not: the log (a sanitizer report, a panic) is the
     * only account of why, and it is deleted next, so it goes to the test's output. */
    if (result > 0 && sig != SIGKILL) {
        char *log = nq_harness_log(s);
        fprintf(stderr, "harness: nqueensd exited %d after signal %d; its output:\n%s\n", result, sig,
                log ? log : "(none)");
        free(log);
    }
    if (s->log_path[0]) unlink(s->log_path);
    return result;
}

/* ---- libcurl ---------------------------------------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t n, void *userp)
{
    nq_http_response *r = userp;
    const size_t len = size * n;
    if (len > BODY_CAP - r->body_len) return 0; /* aborts the transfer */
    char *grown = realloc(r->body, r->body_len + len + 1);
    if (!grown) return 0;
    memcpy(grown + r->body_len, data, len);
    r->body = grown;
    r->body_len += len;
    r->body[r->body_len] = '\0';
    return len;
}

static void clear_headers(nq_http_response *r)
{
    for (size_t i = 0; i < r->nheaders; i++) {
        free(r->headers[i].name);
        free(r->headers[i].value);
    }
    r->nheaders = 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *userp)
{
    nq_http_response *r = userp;
    const size_t len = size * n;
    if (len >= 5 && memcmp(data, "HTTP/", 5) == 0) clear_headers(r); /* a new response (after 1xx) */
    const char *colon = memchr(data, ':', len);
    if (!colon || r->nheaders == NQ_HARNESS_HEADERS_MAX) return len;
    const char *v = colon + 1, *end = data + len;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
    nq_http_header *h = &r->headers[r->nheaders];
    h->name = strndup(data, (size_t)(colon - data));
    h->value = strndup(v, (size_t)(end - v));
    if (h->name && h->value)
        r->nheaders++;
    else {
        free(h->name);
        free(h->value);
    }
    return len;
}

const char *nq_http_header_get(const nq_http_response *r, const char *name)
{
    for (size_t i = 0; i < r->nheaders; i++)
        if (strcasecmp(r->headers[i].name, name) == 0) return r->headers[i].value;
    return NULL;
}

void nq_http_response_free(nq_http_response *r)
{
    if (!r) return;
    clear_headers(r);
    free(r->body);
    memset(r, 0, sizeof *r);
}

double nq_harness_metric(const nq_test_server *s, const char *name)
{
    nq_http_response r;
    double v = -1.0;
    if (nq_http_get(s, "/metrics", &r) && r.status == 200) {
        const size_t len = strlen(name);
        for (const char *line = r.body; line != NULL && *line != '\0';) {
            if (strncmp(line, name, len) == 0 && line[len] == ' ') {
                v = strtod(line + len + 1, NULL);
                break;
            }
            line = strchr(line, '\n');
            line = line != NULL ? line + 1 : NULL;
        }
    }
    nq_http_response_free(&r);
    return v;
}

static bool utf8_text(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\0') return false;
    /* cJSON writes bytes as they are: only claim text when it is plain ASCII or valid-looking UTF-8 */
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c < 0x80) continue;
        size_t k = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 9;
        if (k == 9 || i + k >= len) return false;
        for (size_t j = 1; j <= k; j++)
            if (((unsigned char)s[i + j] & 0xc0) != 0x80) return false;
        i += k;
    }
    return true;
}

/* Save the exchange for the contract checks when NQ_RESPONSES_DIR is set. */
static void record(const char *method, const char *target, const nq_http_response *r)
{
    const char *dir = getenv("NQ_RESPONSES_DIR");
    if (!dir || !*dir) return;
    cJSON *o = cJSON_CreateObject(), *h = cJSON_CreateObject();
    if (!o || !h) goto end;
    const char *q = strchr(target, '?');
    char *path = strndup(target, q ? (size_t)(q - target) : strlen(target));
    cJSON_AddStringToObject(o, "method", method);
    cJSON_AddStringToObject(o, "path", path ? path : "");
    free(path);
    if (q)
        cJSON_AddStringToObject(o, "query", q + 1);
    else
        cJSON_AddNullToObject(o, "query");
    cJSON_AddNumberToObject(o, "status", (double)r->status);
    for (size_t i = 0; i < r->nheaders; i++) {
        char name[128];
        size_t k = 0;
        for (; r->headers[i].name[k] && k < sizeof name - 1; k++)
            name[k] = (char)((r->headers[i].name[k] >= 'A' && r->headers[i].name[k] <= 'Z') ? r->headers[i].name[k] + 32
                                                                                            : r->headers[i].name[k]);
        name[k] = '\0';
        if (!cJSON_GetObjectItemCaseSensitive(h, name)) cJSON_AddStringToObject(h, name, r->headers[i].value);
    }
    cJSON_AddItemToObject(o, "headers", h);
    h = NULL;
    const char *enc = nq_http_header_get(r, "Content-Encoding");
    /* No bytes is an empty body whatever Content-Encoding says (HEAD of a gzip answer, a 304). */
    if (!r->body || r->body_len == 0)
        cJSON_AddStringToObject(o, "body", "");
    else if (!enc && utf8_text(r->body, r->body_len))
        cJSON_AddStringToObject(o, "body", r->body);
    else
        cJSON_AddNullToObject(o, "body");
    char file[512];
    snprintf(file, sizeof file, "%s/response-XXXXXX.json", dir);
    char *text = cJSON_PrintUnformatted(o);
    const int fd = text ? mkstemps(file, 5) : -1; /* a unique name, whatever process writes */
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (f) {
        fputs(text, f);
        fclose(f);
    } else if (fd >= 0) {
        close(fd);
    }
    free(text);
end:
    cJSON_Delete(h);
    cJSON_Delete(o);
}

bool nq_http_request(const nq_test_server *s, const char *method, const char *target, const char *const *headers,
                     nq_http_response *out)
{
    return nq_http_send(s, method, target, headers, NULL, 0, out);
}

bool nq_http_send(const nq_test_server *s, const char *method, const char *target, const char *const *headers,
                  const char *body, size_t len, nq_http_response *out)
{
    memset(out, 0, sizeof *out);
    /* The URL is as long as the test wants (hostile targets run to hundreds of KiB): never cut it. */
    const size_t url_len = strlen(s->base) + strlen(target);
    char *url = malloc(url_len + 1);
    CURL *c = url ? curl_easy_init() : NULL;
    if (!c) {
        free(url);
        return false;
    }
    snprintf(url, url_len + 1, "%s%s", s->base, target);
    struct curl_slist *hl = NULL;
    for (size_t i = 0; headers && headers[i]; i++) hl = curl_slist_append(hl, headers[i]);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    else if (strcmp(method, "GET") != 0 || body)
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    const CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
    else
        fprintf(stderr, "harness: %s %s: %s\n", method, target, curl_easy_strerror(rc));
    curl_slist_free_all(hl);
    curl_easy_cleanup(c);
    free(url);
    if (!out->body) out->body = calloc(1, 1);
    if (rc == CURLE_OK) record(method, target, out);
    return rc == CURLE_OK;
}

bool nq_http_get(const nq_test_server *s, const char *target, nq_http_response *out)
{
    return nq_http_request(s, "GET", target, NULL, out);
}

double nq_harness_await_metric(const nq_test_server *s, const char *name, double want, unsigned timeout_s)
{
    double v = nq_harness_metric(s, name);
    for (unsigned i = 0; i < timeout_s * 20u && v != want; i++) {
        nq_harness_sleep_ms(50);
        v = nq_harness_metric(s, name);
    }
    return v;
}

bool nq_harness_get_gzip(const nq_test_server *s, const char *target, unsigned timeout_s, nq_http_response *r)
{
    static const char *const gzip[] = {"Accept-Encoding: gzip", NULL};
    for (unsigned i = 0; i <= timeout_s * 100u; i++) {
        if (!nq_http_request(s, "GET", target, gzip, r)) return false;
        const char *enc = nq_http_header_get(r, "Content-Encoding");
        if (r->status != 200) break;
        if (enc && strcmp(enc, "gzip") == 0) return true;
        nq_http_response_free(r);
        nq_harness_sleep_ms(10);
    }
    nq_http_response_free(r);
    return false;
}

bool nq_harness_gunzip(const char *in, size_t len, char **out, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return false;
    size_t cap = len * 4 + 64, used = 0;
    char *buf = malloc(cap + 1);
    int rc = Z_OK;
    z.next_in = (const Bytef *)in;
    z.avail_in = (uInt)len;
    while (buf && rc == Z_OK) {
        if (used == cap) {
            char *bigger = cap < BODY_CAP ? realloc(buf, cap * 2 + 1) : NULL;
            if (!bigger) break;
            buf = bigger;
            cap *= 2;
        }
        z.next_out = (Bytef *)buf + used;
        z.avail_out = (uInt)(cap - used);
        rc = inflate(&z, Z_NO_FLUSH);
        used = cap - z.avail_out;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END || z.avail_in != 0) {
        free(buf);
        return false;
    }
    buf[used] = '\0';
    *out = buf;
    *out_len = used;
    return true;
}

/* ---- raw sockets ------------------------------------------------------------------------------ */

int nq_raw_connect(uint16_t port)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return fd;
    close(fd);
    return -1;
}

char *nq_raw_request(uint16_t port, const char *req, size_t len, unsigned timeout_ms, size_t *out_len)
{
    const int fd = nq_raw_connect(port);
    if (fd < 0) return NULL;
    char *buf = NULL;
    size_t used = 0, cap = 0;
    for (size_t sent = 0; sent < len;) {
        const ssize_t w = send(fd, req + sent, len - sent, MSG_NOSIGNAL);
        if (w <= 0) break; /* the server may close early: read what it said */
        sent += (size_t)w;
    }
    cap = 4096;
    buf = malloc(cap + 1);
    while (buf) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)timeout_ms) <= 0) break;
        if (used == cap) {
            char *bigger = realloc(buf, cap * 2 + 1);
            if (!bigger) break;
            buf = bigger;
            cap *= 2;
        }
        const ssize_t r = recv(fd, buf + used, cap - used, 0);
        if (r <= 0) break;
        used += (size_t)r;
    }
    if (buf) {
        buf[used] = '\0';
        *out_len = used;
    }
    close(fd);
    return buf;
}
