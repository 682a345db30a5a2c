/*
 * mem.c: the process heap on transparent huge pages (contract in core.h).
 *
 * Why: on the virtual machines loupe is measured on, a page fault costs about 16 us (bench:
 * a 4 KiB fault per page touched vs one per 2 MiB), and a one-file sync touched ~2,300 fresh
 * pages (SQLite's page cache, the file lists, hash maps): a third of its CPU time. The heap
 * is grown once, up front, into an address range advised MADV_HUGEPAGE (the machines run
 * THP in "madvise" mode), and kept: later allocations reuse it, faulting 2 MiB at a time.
 * Growth past the reserve extends the same advised mapping, so the whole main heap is on huge
 * pages and what it frees is kept: right for a command that runs and exits, wrong for the
 * MCP server (bench/mcp: RSS 29 -> 67 MiB over 1,000 searches with a 32 MiB reserve, 29 ->
 * 31 MiB without), which therefore makes none.
 */
#include "core/core.h"
#include "core/settings.h"

#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)
#define RESERVE_MIN ((size_t)32 << 20)
#define RESERVE_STEPS 16

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LP_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LP_SANITIZER_ALLOCATOR 1
#endif
#endif

size_t lp_mem_tune(size_t reserve_max)
{
#ifdef LP_SANITIZER_ALLOCATOR
    return 0; /* the sanitizer's allocator owns the heap: nothing to reserve or advise */
#endif
    if (lp_setting_bool(LP_SET_NO_HUGEPAGES))
        return 0;
    /* Under an address-space limit (ulimit -v), reserve at most an eighth of it. */
    size_t reserve = reserve_max;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur / 8 < reserve)
        reserve = (size_t)(rl.rlim_cur / 8);
    if (reserve < RESERVE_MIN)
        return 0;
    /* Requests below 32 MiB come from the heap (not fresh mmaps); the heap grows 16 MiB past
     * each need. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
    char *start = sbrk(0);
    void *chunks[RESERVE_STEPS] = {0};
    for (int i = 0; i < RESERVE_STEPS; i++)
        chunks[i] = malloc(reserve / RESERVE_STEPS); /* NULL past a limit: fine */
    char *end = sbrk(0);
    /* The freed reserve becomes the top chunk: bigger than the reserve by malloc's top pad,
     * so the threshold is set from what was grown, or free() would hand it all back. */
    if (start != (char *)-1 && end != (char *)-1 && end > start)
        mallopt(M_TRIM_THRESHOLD, (int)((size_t)(end - start) + HUGE_PAGE));
    for (int i = RESERVE_STEPS - 1; i >= 0; i--)
        free(chunks[i]);
    if (start == (char *)-1 || end == (char *)-1 || end <= start || sbrk(0) != end)
        return 0; /* another allocator (sanitizers), no heap growth, or given back */
    uintptr_t a = ((uintptr_t)start + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if ((char *)a >= end || madvise((void *)a, (size_t)(end - (char *)a), MADV_HUGEPAGE) != 0)
        return 0;
    return (size_t)(end - (char *)a);
}
