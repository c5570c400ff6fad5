/* lua_memory.c (bindings) — the allocator of ./attn's Lua states: luaL_newstate's (realloc and free)
 * with the memory limits of src/core/memlimit.h in front of it.
 *
 * Why: tensors are checked before they are allocated (storage.c), but Lua's own objects are not, and in
 * a container Linux's overcommit lets a growing table or string take the whole memory cgroup, whose OOM
 * killer then ends the session (exit 137). With this allocator such growth fails as Lua's "not enough
 * memory" error instead: a block of 16 MB or more is refused when it is over half of what the process
 * may still take, and each time the heap has grown by another 64 MB the limits are read again and the
 * growth refused when less than 64 MB is left. Tensor storage goes through the same allocator
 * (init.c's use_lua_allocator), so its many small tensors count too. */
#include <stdlib.h>

#include "bind.h"
#include "memlimit.h"

#define BIG_BLOCK ((size_t)16 << 20)
#define CHECK_EVERY ((size_t)64 << 20)

static size_t heap_bytes = 0;            /* what the Lua states of this process hold through here */
static size_t next_check = CHECK_EVERY; /* heap_bytes at which the limits are read again */

static void *guarded_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    size_t old = ptr ? osize : 0; /* without ptr, osize is the kind of object, not a size */
    if (nsize == 0) {
        free(ptr);
        heap_bytes -= old;
        if (next_check > heap_bytes + 2 * CHECK_EVERY)
            next_check = heap_bytes + CHECK_EVERY;
        return NULL;
    }
    if (nsize > old) {
        size_t grow = nsize - old;
        if (grow >= BIG_BLOCK || heap_bytes + grow >= next_check) {
            double avail = attn_memory_available(NULL, 0);
            if (avail >= 0 && ((double)grow > 0.5 * avail || avail < (double)CHECK_EVERY))
                return NULL; /* Lua collects garbage, tries again, then raises "not enough memory" */
            next_check = heap_bytes + grow + CHECK_EVERY;
        }
    }
    void *p = realloc(ptr, nsize);
    if (p)
        heap_bytes = heap_bytes - old + nsize;
    return p;
}

void lt_guard_lua_memory(lua_State *L)
{
    /* luaL_newstate's allocator is realloc and free, as this one's: the blocks it has already handed
     * out can be freed here. attn.so, inside someone else's state, keeps that state's allocator. */
    lua_setallocf(L, guarded_alloc, NULL);
}
