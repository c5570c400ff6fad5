/* memlimit.h — how much memory this process may still take, from every limit that applies: the
 * machine's available memory, a memory cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes) minus
 * what the group already uses, and RLIMIT_AS minus the address space already mapped.
 *
 * Why: Linux overcommits, so a huge malloc succeeds and the process is killed later, when its pages are
 * touched, by the kernel's OOM killer or the cgroup's (exit 137, the session lost). Checking first turns
 * that into an error the user can read. */
#ifndef ATTN_MEMLIMIT_H
#define ATTN_MEMLIMIT_H

#include <stddef.h>

/* The bytes still available to this process under the tightest limit, or -1 when none is known. which
 * (if not NULL) gets a short name of that limit, e.g. "the memory left under this process's cgroup limit", for messages. */
double attn_memory_available(char *which, size_t which_size);

/* The same, with the cgroup files read under root instead of /sys/fs/cgroup and the process's groups
 * from cgroup_file instead of /proc/self/cgroup (for tests, which cannot make a cgroup). */
double attn_memory_available_at(const char *root, const char *cgroup_file, char *which, size_t which_size);

/* A limit of its own, for tests (the fuzzer: bind.testing.set_memory_cap): bytes this process may hold
 * in all, as if it were alone in a memory cgroup of that size; 0 removes it. */
void attn_set_memory_cap(double bytes);
/* The same cap as a budget (--verify's notes: src/cli/notes.c), name() saying which in messages ("the
 * memory budget of a notes file"). name is a function, called when a message needs it, so that it can
 * translate a literal (attn_tr("...")) in the language chosen by then: a name translated when the
 * budget is set would be English (the language is chosen later), and a name given as a variable could
 * not be extracted into the catalogs (tests/i18n/test_error_formats.sh). */
void attn_set_memory_budget(double bytes, const char *(*name)(void));

/* The machine's physical memory in bytes (read once), or 1e15 when unknown. */
double attn_machine_bytes(void);

#endif
