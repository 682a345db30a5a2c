/*
 * fuzz.h: what the fuzz targets of tests/fuzz share.
 *
 * Each tests/fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput (and LLVMFuzzerInitialize
 * when it needs one-time setup, lp_fuzz_synthesize when it has hostile cases too big to
 * commit). A target is linked two ways:
 *   - with libFuzzer (build/fuzz/fuzz_<name>, `make fuzz`): coverage-guided runs;
 *   - with tests/fuzz/replay.c (build/asan/fuzz-replay-<name>, built by `make asan`): a plain
 *     main() that replays the committed corpus tests/fuzz/corpus/<name>/ and the synthesized
 *     cases under ASan+UBSan in `make test` (tests/fuzz/replay.py).
 * A target must be deterministic enough to replay, must not write outside its own temporary
 * folder, and checks the invariants of the code it drives with LP_FUZZ_CHECK (an abort is a
 * finding, like a sanitizer report).
 */
#ifndef LP_FUZZ_H
#define LP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Hand one synthesized case to the replay driver (which runs it through the target). */
typedef void (*lp_fuzz_emit)(const char *name, const uint8_t *data, size_t size);
/* Optional per target: emit the cases built at replay time (100 MB lines, 100k-deep
 * nesting...). The replay driver also runs its own generic hostile cases on every target. */
void lp_fuzz_synthesize(lp_fuzz_emit emit);

#define LP_FUZZ_CHECK(cond)                                                                     \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

#endif
