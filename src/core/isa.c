/* isa.c — the parts of isa.h every machine shares: names, and ATTN_ISA read once. The CPU is asked by
 * the one dispatch file of the machine's kind (src/core/x86/dispatch.c, src/core/generic/dispatch.c). */
#include "isa.h"

#include <stdlib.h>
#include <string.h>

/* the dispatch file's: the widest instruction set this CPU runs, and whether it runs isa */
attn_isa attn_isa_widest(void);
int attn_isa_runs(attn_isa isa);

static const char *const names[] = {"portable", "avx2", "avx512", "neon", "simd128"};

const char *attn_isa_name(attn_isa isa)
{
    return (unsigned)isa < sizeof names / sizeof names[0] ? names[isa] : "?";
}

int attn_isa_from_name(const char *name)
{
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (name && strcmp(name, names[i]) == 0)
            return (int)i;
    return -1;
}

static int chosen = -1; /* -1 until first asked */

attn_isa attn_isa_current(void)
{
    if (chosen < 0) {
        int want = attn_isa_from_name(getenv("ATTN_ISA"));
        chosen = want >= 0 && attn_isa_runs((attn_isa)want) ? want : (int)attn_isa_widest();
    }
    return (attn_isa)chosen;
}

int attn_isa_set(attn_isa isa)
{
    if (!attn_isa_runs(isa))
        return -1;
    chosen = (int)isa;
    return 0;
}
