# web.mk — `make web`: attn compiled to WebAssembly with Debian's emscripten, into build/web/ (static files:
# the page, the wasm module and its JavaScript, xterm.js, the lessons). Included by the Makefile.
#
# What a page cannot use is left out by choosing files, not by #ifdef: the core with the portable kernels
# (src/core/generic, as every machine that is not x86-64), src/bind, and of src/cli only what lessons,
# notes and the command line need; src/web/ holds the browser's side (its entry point, the page, the worker)
# and the files that stand in for src/cli's readline REPL, Jupyter kernel and notebooks.
# Lua 5.4 and the C libraries come from Debian's source packages (scripts/fetch-web-sources.sh), compiled
# here with the same emcc. Objects go to build/wasm/, shared by the page's module and the node build
# (build/wasm/attn.js: attn's command line under node, which the tests in tests/web compare with ./attn).
EMCC      ?= emcc
# emscripten's optimizer runs on Debian's acorn (facts in portability-facts.md)
EMENV     := NODE_PATH=/usr/share/nodejs
WEB_SRC_DIR := build/web-src
WEB_LIBS_INC := -I$(WEB_SRC_DIR)/lua5.4/src -I$(WEB_SRC_DIR)/cjson/.. -I$(WEB_SRC_DIR)/pcre2/src \
                -I$(WEB_SRC_DIR)/utf8proc -I$(WEB_SRC_DIR)/cmark/src
WASM_CFLAGS := -std=c11 -D_GNU_SOURCE -ffp-contract=off -O2 -Isrc/core -Isrc/bind -Isrc/cli -Ibuild/gen \
               -DPCRE2_CODE_UNIT_WIDTH=8 -DPCRE2_STATIC -DUTF8PROC_STATIC -DCMARK_STATIC_DEFINE $(WEB_LIBS_INC)

# attn's own C: the core (portable kernels), the bindings, the embedded Lua library and catalogs, and the
# parts of src/cli a page or node uses (not repl.c: readline; not kernel*.c, ipynb.c: ZeroMQ and files).
WEB_CORE_SRC := $(wildcard src/core/*.c src/core/generic/*.c src/core/wasm/*.c)
WEB_CLI_SRC  := $(filter-out src/cli/repl.c src/cli/kernel%.c src/cli/ipynb.c src/cli/main.c,$(CLI_SRC))
WEB_ATTN_SRC := $(WEB_CORE_SRC) $(BIND_SRC) $(WEB_CLI_SRC) build/gen/lua_embed.c build/gen/data_embed.c \
                $(filter-out src/web/main_page.c,$(wildcard src/web/*.c))
wasm_obj = $(patsubst %.c,build/wasm/%.o,$(1))

# The libraries' sources, by the names in their unpacked Debian trees.
WEB_LUA_FILES  := lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser lstate \
                  lstring ltable ltm lundump lvm lzio lauxlib lbaselib lcorolib ldblib liolib lmathlib \
                  loadlib loslib lstrlib ltablib lutf8lib linit
WEB_PCRE2_FILES := auto_possess chartables compile config context convert dfa_match error extuni \
                   find_bracket jit_compile maketables match match_data newline ord2utf pattern_info \
                   script_run serialize string_utils study substitute substring tables ucd valid_utf xclass
WEB_CMARK_FILES := blocks buffer cmark cmark_ctype commonmark houdini_href_e houdini_html_e houdini_html_u \
                   html inlines iterator latex man node references render scanners utf8 xml
WEB_LIB_SRC := $(patsubst %,$(WEB_SRC_DIR)/lua5.4/src/%.c,$(WEB_LUA_FILES)) \
               $(patsubst %,$(WEB_SRC_DIR)/pcre2/src/pcre2_%.c,$(WEB_PCRE2_FILES)) \
               $(patsubst %,$(WEB_SRC_DIR)/cmark/src/%.c,$(WEB_CMARK_FILES)) \
               $(WEB_SRC_DIR)/cjson/cJSON.c $(WEB_SRC_DIR)/utf8proc/utf8proc.c \
               $(patsubst %,$(WEB_SRC_DIR)/glibc/s_%.c,tanhf erff expm1f)

$(WEB_SRC_DIR)/.fetched: scripts/fetch-web-sources.sh
	sh scripts/fetch-web-sources.sh $(WEB_SRC_DIR)
$(WEB_LIB_SRC): $(WEB_SRC_DIR)/.fetched

# The libraries: their own code, with their own warnings left alone (LUA_USE_POSIX for Lua's os and io
# under emscripten's libc; PCRE2 and cmark as their generic configurations say).
build/wasm/libs.a: $(patsubst %.c,build/wasm/%.o,$(WEB_LIB_SRC))
	rm -f $@
	$(EMENV) emar rcs $@ $^
build/wasm/$(WEB_SRC_DIR)/%.o: $(WEB_SRC_DIR)/%.c
	@mkdir -p $(dir $@)
	$(EMENV) $(EMCC) -O2 -DLUA_USE_POSIX -DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 -DSUPPORT_UNICODE \
		-DUTF8PROC_STATIC -DCMARK_STATIC_DEFINE -w $(WEB_LIBS_INC) -c -o $@ $<

# glibc's tanhf, erff and expm1f (fetch-web-sources.sh says why) under their public names, so that the link
# takes them from libs.a, before musl's; its expf is glibc's bit for bit (measured), so erff calls it.
build/wasm/$(WEB_SRC_DIR)/glibc/%.o: $(WEB_SRC_DIR)/glibc/%.c
	@mkdir -p $(dir $@)
	$(EMENV) $(EMCC) -O2 -ffp-contract=off -w -I$(WEB_SRC_DIR)/glibc/include -D__tanhf=tanhf -D__erff=erff \
		-D__erfcf=erfcf -D__expm1f=expm1f -D__ieee754_expf=expf -c -o $@ $<

build/wasm/%.o: %.c | $(WEB_SRC_DIR)/.fetched build/gen/lua_embed.c build/gen/data_embed.c
	@mkdir -p $(dir $@)
	$(EMENV) $(EMCC) $(WASM_CFLAGS) $(WARN) -MMD -MP -c -o $@ $<
# src/core/wasm's kernels use WebAssembly's SIMD (isa.h's ATTN_ISA_SIMD128); the rest of the C does not, so
# that clang's vectoriser never meets the code whose bits are decided elsewhere
$(call wasm_obj,$(wildcard src/core/wasm/*.c)): WASM_CFLAGS += -msimd128
-include $(wildcard $(patsubst %.o,%.d,$(call wasm_obj,$(WEB_ATTN_SRC) src/web/main_page.c src/cli/main.c)))

# attn's command line under node (files through node's, -sNODERAWFS): what tests/web runs against ./attn.
WASM_LINK := -O2 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sWASM_ASYNC_COMPILATION=0
build/wasm/attn.js: $(call wasm_obj,$(WEB_ATTN_SRC) src/cli/main.c) build/wasm/libs.a src/web/node_env.js
	$(EMENV) $(EMCC) $(WASM_LINK) -sNODERAWFS=1 -sEXIT_RUNTIME=1 --pre-js src/web/node_env.js -o $@ $(filter %.o %.a,$^) -lm

# ---- the page: build/web/ ------------------------------------------------------------------------------
# Its module (attn-page.js/.wasm) links the same objects as the node build, with the page's terminal, Ctrl-C,
# notes and entry point (src/web/page/*.c) in place of src/cli's term.c, interrupt.c, notes.c, markdown.c (which
# needs notes.c's file states) and main.c. The lessons and
# their PyTorch references are preloaded in make install's layout (/attn/lessons, /attn/data/torch) into
# attn-page.data. xterm.js and coi-serviceworker come from npm (src/web/package-lock.json), installed in
# build/web-npm, never in the source tree.
WEB_PAGE_C   := $(wildcard src/web/page/*.c)
WEB_PAGE_OBJ := $(call wasm_obj,$(filter-out src/cli/term.c src/cli/interrupt.c src/cli/notes.c src/cli/markdown.c,$(WEB_ATTN_SRC)) $(WEB_PAGE_C))
WEB_PAGE_FILES := $(addprefix build/web/,index.html page.js worker.js style.css models.js worker_models.js)
WEB_EXPORTS  := _attn_page_start,_attn_page_eval,_attn_page_complete,_attn_page_lesson,_attn_page_lang,_malloc,_free
# The tiny models every page has (models.js): a GPT-2 and a Qwen3 of the tests' (random weights, 0.8 MB)
WEB_TINY_MODELS := tests/data/gpt2/tiny/config.json tests/data/gpt2/tiny/model.safetensors \
                   tests/data/hf_models/qwen3-f32/config.json tests/data/hf_models/qwen3-f32/model.safetensors
WEB_LESSONS  := $(wildcard lessons/*.lua)

build/web/attn-page.js: $(WEB_PAGE_OBJ) build/wasm/libs.a build/wasm/page-data.stamp
	@mkdir -p $(dir $@)
	$(EMENV) $(EMCC) -O2 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sMODULARIZE=1 -sEXPORT_NAME=createAttn \
		-sENVIRONMENT=worker -sEXPORTED_FUNCTIONS=$(WEB_EXPORTS) -sEXPORTED_RUNTIME_METHODS=ccall,FS,ENV \
		--preload-file build/wasm/page-data/attn@/attn -o $@ $(filter %.o %.a,$^) -lm
$(call wasm_obj,$(WEB_PAGE_C)): WARN += -Wno-dollar-in-identifier-extension
build/wasm/page-data.stamp: $(WEB_LESSONS) $(wildcard lessons/data/*) $(wildcard tests/data/torch/lesson*_*.txt) \
                            $(WEB_TINY_MODELS)
	rm -rf build/wasm/page-data
	mkdir -p build/wasm/page-data/attn/lessons/data build/wasm/page-data/attn/data/torch \
		build/wasm/page-data/attn/models/gpt2-tiny build/wasm/page-data/attn/models/qwen3-tiny
	cp $(filter tests/data/gpt2/%,$(WEB_TINY_MODELS)) build/wasm/page-data/attn/models/gpt2-tiny/
	cp $(filter tests/data/hf_models/%,$(WEB_TINY_MODELS)) build/wasm/page-data/attn/models/qwen3-tiny/
	cp $(WEB_LESSONS) build/wasm/page-data/attn/lessons/
	cp lessons/data/* build/wasm/page-data/attn/lessons/data/
	cp tests/data/torch/lessons_*.txt tests/data/torch/lesson_*.txt build/wasm/page-data/attn/data/torch/
	touch $@
build/web/lessons.txt: $(WEB_LESSONS)
	@mkdir -p $(dir $@)
	for f in $(notdir $(WEB_LESSONS)); do echo "/attn/lessons/$$f"; done > $@
build/web/%: src/web/page/%
	@mkdir -p $(dir $@)
	cp $< $@
build/web-npm/node_modules/.package-lock.json: src/web/package.json src/web/package-lock.json
	@mkdir -p build/web-npm
	cp src/web/package.json src/web/package-lock.json build/web-npm/
	cd build/web-npm && npm ci --no-audit --no-fund --loglevel=error
build/web/xterm.js: build/web-npm/node_modules/.package-lock.json
	@mkdir -p $(dir $@)
	cp build/web-npm/node_modules/@xterm/xterm/lib/xterm.js build/web/xterm.js
	cp build/web-npm/node_modules/@xterm/xterm/css/xterm.css build/web/xterm.css
	cp build/web-npm/node_modules/coi-serviceworker/coi-serviceworker.min.js build/web/

# The page's own words (page.js's tr): each language's src/po/<lang>/lib/page.po, compiled by msgfmt as
# attn's catalogs are, read by Python's gettext (python3: emscripten's own dependency) into one JSON.
WEB_WORDS_MO := $(patsubst src/po/%.po,build/gen/mo/%.mo,$(wildcard src/po/*/lib/page.po))
build/web/words.json: $(WEB_WORDS_MO) scripts/po-json.py
	@mkdir -p $(dir $@)
	python3 scripts/po-json.py $(WEB_WORDS_MO) > $@.tmp && mv $@.tmp $@

web: $(WEB_PAGE_FILES) build/web/lessons.txt build/web/words.json build/web/xterm.js build/web/attn-page.js
	@echo "make web: build/web/ is the page; try it with: cd build/web && python3 -m http.server"
web-and-node: web build/wasm/attn.js

build/web/attn-page.js build/wasm/attn.js: | web-deps
web-deps:
	@sh scripts/install-web-deps.sh
.PHONY: web-deps
