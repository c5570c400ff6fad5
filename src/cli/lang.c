/* lang.c — --lang: which languages attn has catalogs for (the embedded data files of data_embed.h,
 * "zh_CN/lessons/01_simple_attention.mo"), and passing the one chosen on to the Lua side. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "data_embed.h"

/* The languages attn has catalogs for, "en" first: the first folder of each embedded data file's name. */
const char *attn_languages(void) {
    static char list[256];
    strcpy(list, "en");
    for (const attn_data_file *f = attn_data_files; f->name; f++) {
        const char *slash = strchr(f->name, '/');
        char lang[32];
        size_t n = slash ? (size_t)(slash - f->name) : 0;
        if (n == 0 || n >= sizeof lang) continue;
        memcpy(lang, f->name, n);
        lang[n] = '\0';
        if (strstr(list, lang) == NULL && strlen(list) + n + 3 < sizeof list) {
            strcat(list, ", ");
            strcat(list, lang);
        }
    }
    return list;
}

/* --lang's language: en or one with catalogs ("zh_CN", or "zh_CN.UTF-8" as in LANG). It is passed on
 * to the Lua side (src/lua/i18n.lua) as ATTN_LANG, which every Lua state --check makes reads too. */
static const char *refused = NULL; /* the word --lang was given when there is no catalog for it */

const char *attn_lang_refused(void) { return refused; }

int attn_lang_option(const char *value) {
    char base[32];
    size_t n = value ? strcspn(value, ".@") : 0;
    if (value == NULL || n == 0 || n >= sizeof base) {
        refused = value ? value : "";
        return 0;
    }
    memcpy(base, value, n);
    base[n] = '\0';
    int known = strcmp(base, "en") == 0 || strncmp(base, "en_", 3) == 0;
    for (const attn_data_file *f = attn_data_files; f->name && !known; f++)
        known = strncmp(f->name, base, n) == 0 && f->name[n] == '/';
    if (!known) {
        refused = value;
        return 0;
    }
    setenv("ATTN_LANG", base, 1);
    return 1;
}

