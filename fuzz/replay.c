/* replay.c - a stand-in for libFuzzer's main: feed files (or every file in directories) to a harness.
 *
 * Used for the corpus replay tests, so the seed corpus and saved crash inputs run in every build
 * (gcc, clang, ASan+UBSan, TSan) without libFuzzer. Also handy to reproduce a single crash under gdb:
 *   build/release/fuzz/replay_query fuzz/corpus/query/some-input
 * Exits 0 when every input ran (a harness signals failure by aborting), 1 on an unreadable path.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_INPUT (1u << 20) /* the largest input replayed; libFuzzer's own default cap is 4 KiB */

/* Harnesses that need no set-up leave LLVMFuzzerInitialize undefined; this weak one stands in. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* Read the file at path into a fresh buffer of exactly its size and run the harness on it. */
static int replay_file(const char *path)
{
    int rc = 1;
    uint8_t *buf = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) goto end;
    buf = malloc(MAX_INPUT);
    if (!buf) goto end;
    const size_t n = fread(buf, 1, MAX_INPUT, f);
    if (ferror(f)) goto end;
    /* Shrink to the exact size so the harness sees the same bounds as under libFuzzer. */
    uint8_t *const exact = malloc(n ? n : 1);
    if (!exact) goto end;
    memcpy(exact, buf, n);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    rc = 0;
end:
    if (rc) fprintf(stderr, "replay: cannot read %s\n", path);
    free(buf);
    if (f) fclose(f);
    return rc;
}

/* Replay every regular file directly inside dir (corpora are flat); *count is increased per file. */
static int replay_dir(const char *dir, unsigned *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open %s\n", dir);
        return 1;
    }
    int rc = 0;
    char path[4096];
    for (const struct dirent *e = readdir(d); e; e = readdir(d)) {
        if (e->d_name[0] == '.') continue; /* ".", ".." and dot files such as .gitkeep */
        const int len = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (len < 0 || (size_t)len >= sizeof path) {
            rc = 1;
            continue;
        }
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        rc |= replay_file(path);
        ++*count;
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    unsigned count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], errno == ENOENT ? "no such path" : "stat failed");
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            rc |= replay_dir(argv[i], &count);
        } else {
            rc |= replay_file(argv[i]);
            count++;
        }
    }
    /* stderr: a harness may have pointed stdout elsewhere (fuzz_app silences the access log). */
    fprintf(stderr, "replay: %u inputs ran%s\n", count, rc ? ", some paths unreadable" : "");
    return rc || count == 0; /* an empty corpus means the test checks nothing: fail it */
}
