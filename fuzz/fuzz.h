/* fuzz.h - what every nqueens fuzz harness shares: the libFuzzer entry points and the oracle check.
 *
 * A harness is one .c file defining LLVMFuzzerTestOneInput (and optionally LLVMFuzzerInitialize).
 * The same file links two ways (fuzz/CMakeLists.txt): with libFuzzer (clang, -DNQ_FUZZ=ON) to search
 * for new inputs, or with replay.c (any compiler, every test build) to re-run the seed corpus and the
 * recorded crashes as an ordinary ctest, so a fixed bug stays fixed under gcc, ASan and UBSan too.
 *
 * A harness must be deterministic, must not leak across calls and must treat the input as hostile:
 * it copies the bytes into an exactly-sized heap buffer before handing them on, so a read one byte
 * past the end is an ASan report, not a silent read of libFuzzer's padding.
 */
#ifndef NQ_FUZZ_H
#define NQ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libFuzzer's entry points (declared here because neither libFuzzer nor replay.c ships a header). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An oracle failure: print what was expected and abort, which libFuzzer reports as a crash (and
 * saves the input), and which fails the replay test. Kept on in release builds (no NDEBUG games). */
#define NQ_FUZZ_CHECK(cond)                                                                \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: fuzz oracle failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

#endif /* NQ_FUZZ_H */
