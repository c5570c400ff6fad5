/* page.h — what the page's C files (src/web/page/) share: the time budget of a note (page_interrupt.c's
 * hook stops the Lua code running once it has passed, as a terminal's Ctrl-C does), and the figures
 * (page_figures.c). */
#ifndef ATTN_PAGE_H
#define ATTN_PAGE_H

#include <lua.h>

/* From now on, the chunk running stops after seconds (<= 0: no budget). */
void attn_page_deadline(double seconds);

/* Whether the budget set last has been spent. */
int attn_page_deadline_passed(void);

/* Installs attn.web.figures in L: its heatmaps and plots go to the page as SVG. 0 when it failed. */
int attn_page_figures_setup(lua_State *L);

#endif
