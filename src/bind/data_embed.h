/* data_embed.h — the data files embedded in the binary beside the Lua library: the compiled
 * translation catalogs (build/gen/mo/<lang>/<domain>.mo, from src/po) and the glossary, written
 * into build/gen/data_embed.c by scripts/embed-data.sh. src/bind/i18n.c hands them to Lua. */
#ifndef ATTN_DATA_EMBED_H
#define ATTN_DATA_EMBED_H
#include <stddef.h>

typedef struct attn_data_file {
    const char *name; /* its path below the catalogs' folder: "zh_CN/lessons/01_simple_attention.mo" */
    const char *data;
    size_t length;
} attn_data_file;

extern const attn_data_file attn_data_files[]; /* ends with { NULL, NULL, 0 } */
#endif
