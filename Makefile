# bigchunk - trace-driven replay of the Linux page allocator and alloc_contig_pages().
#
#   make            build ./bigchunk
#   make run        main job on the bundled default capture
#   make check      all tests (live tests run when root + tracefs, else skip with a reason;
#                   the summary counts the live tests that ran and the skips, with reasons)
#   make asan       tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make check-kernels  boot Debian's 6.1 and 6.12 kernels in QEMU, record and score a
#                   capture in each (tests/vm/; skips with a reason without QEMU or network)
#   make bench      benchmarks (BC_BENCH_REV=REV also compares replay and predict with REV)
#   make install PREFIX=/usr/local DESTDIR=
#   make fuzz       libFuzzer targets (clang) for FUZZ_SECONDS each (default 60)
#
# V=1 shows commands, DEBUG=0..2 sets the model's assertion tier.

CC ?= cc
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
DEBUG ?= 1
BUILD ?= build
BIN ?= bigchunk
TESTBIN ?= tests/check_bigchunk

PKGS := libtracecmd libtracefs libtraceevent sqlite3
TEST_PKGS := check

ifeq ($(V),1)
Q =
else
Q = @
endif

# Packages a fresh Debian 12 needs; `make deps` installs the missing ones.
DEB_PKGS := build-essential pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev \
	    libsqlite3-dev check trace-cmd zstd libxml2-utils
FUZZ_DEB_PKGS := clang libclang-rt-14-dev

CFLAGS ?= -g -O2
BC_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -Wmissing-prototypes \
	     -Wvla -D_GNU_SOURCE -DMODEL_DEBUG=$(DEBUG) -I. -MMD -MP
SANITIZE ?=
ifneq ($(SANITIZE),)
BC_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif

PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(TEST_PKGS) 2>/dev/null)
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs $(TEST_PKGS) 2>/dev/null)

# Library layers: everything except cli/ (which links it all) and tests/.
LIB_SRCS := $(wildcard common/*.c db/*.c capture/*.c trace/*.c model/*.c replay/*.c predict/*.c \
	    checkers/*.c report/*.c sim/*.c compare/*.c)
CLI_SRCS := $(wildcard cli/*.c)
TEST_SRCS := $(wildcard tests/*.c)
BENCH_SRCS := $(wildcard bench/*.c)

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/db/schema-sql.o $(BUILD)/db/schema-image.o \
	    $(BUILD)/report/assets.o
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/tests/suites.o
CLI_LIB_OBJS := $(filter-out $(BUILD)/cli/bigchunk.o,$(CLI_OBJS))

all: $(BIN)

$(BIN): $(LIB_OBJS) $(CLI_OBJS)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm -lpthread

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BC_CFLAGS) $(PKG_CFLAGS) $(if $(filter tests/%,$<),$(CHECK_CFLAGS) -Wno-missing-prototypes) -c -o $@ $<

# The schema is compiled in as a C string so the binary needs no data files.
$(BUILD)/db/schema-sql.c: db/schema.sql
	@mkdir -p $(dir $@)
	$(Q){ echo 'const char tdb_schema_sql[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; echo ';'; } > $@

# ... and as the empty database it makes, which a new capture starts as a copy of
# (db/mkschema/mkschema.c, run at build time with the SQLite the binary links).
$(BUILD)/db/mkschema: db/mkschema/mkschema.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) -O2 $(shell $(PKG_CONFIG) --cflags sqlite3) -o $@ $< $(shell $(PKG_CONFIG) --libs sqlite3)

$(BUILD)/db/schema-image.c: db/schema.sql $(BUILD)/db/mkschema
	$(Q)$(BUILD)/db/mkschema db/schema.sql > $@.tmp && mv $@.tmp $@

# The report page's script and style, compiled in likewise (report/html.h).
$(BUILD)/report/assets.c: report/assets/report.js report/assets/report.css
	@mkdir -p $(dir $@)
	$(Q){ for v in js css; do echo "const char html_$$v[] ="; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' report/assets/report.$$v; \
	  echo ';'; done; } > $@

# Each tests/test_X.c defines "Suite *X_suite(void)"; the list is generated.
$(BUILD)/tests/suites.c: $(filter tests/test_%.c,$(TEST_SRCS))
	@mkdir -p $(dir $@)
	$(Q){ echo '#include <check.h>'; \
	  for f in $(patsubst tests/test_%.c,%,$(filter tests/test_%.c,$(TEST_SRCS))); do \
	    echo "Suite *$${f}_suite(void);"; done; \
	  echo 'Suite *(*const bc_test_suites[])(void) = {'; \
	  for f in $(patsubst tests/test_%.c,%,$(filter tests/test_%.c,$(TEST_SRCS))); do \
	    echo "	$${f}_suite,"; done; \
	  echo '	0 };'; } > $@

$(BUILD)/tests/suites.o: $(BUILD)/tests/suites.c
	$(Q)$(CC) $(CFLAGS) $(BC_CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<

# Benchmark programs link the library layers.
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(filter bench/bench-%.c,$(BENCH_SRCS)))
$(BUILD)/bench/%: bench/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BC_CFLAGS) $(PKG_CFLAGS) -Wno-missing-prototypes -o $@ $< $(LIB_OBJS) \
	  $(LDFLAGS) $(PKG_LIBS) -lm -lpthread

# Workload generator for live tests and benchmarks (not part of bigchunk).
WORKLOAD := $(BUILD)/workload
$(WORKLOAD): tests/workload/workload.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -o $@ $<

$(TESTBIN): $(TEST_OBJS) $(LIB_OBJS) $(CLI_LIB_OBJS) $(BIN) $(WORKLOAD)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(TEST_OBJS) $(LIB_OBJS) $(CLI_LIB_OBJS) $(CHECK_LIBS) $(PKG_LIBS) -lm -lpthread

deps:
	$(Q)./tests/ensure-deps.sh $(DEB_PKGS)

check: deps
	$(Q)$(MAKE) --no-print-directory $(TESTBIN)
	$(Q)BIGCHUNK=./$(BIN) BC_WORKLOAD=./$(WORKLOAD) ./tests/run-tests.sh ./$(TESTBIN)

# Captures recorded in Debian's 6.1 and 6.12 kernels under QEMU TCG, scored (tests/vm/).
check-kernels: deps
	$(Q)$(MAKE) --no-print-directory $(BIN) $(WORKLOAD)
	$(Q)BIGCHUNK=./$(BIN) BC_WORKLOAD=./$(WORKLOAD) ./tests/vm/check-kernels.sh

ASAN_MAKE = BUILD=build-asan BIN=build-asan/bigchunk TESTBIN=build-asan/check_bigchunk \
	    SANITIZE=address,undefined
asan: deps
	$(Q)$(MAKE) --no-print-directory $(ASAN_MAKE) build-asan/check_bigchunk
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  BIGCHUNK=./build-asan/bigchunk BC_WORKLOAD=./build-asan/workload \
	  ./tests/run-tests.sh ./build-asan/check_bigchunk

# Fuzzing: tests/fuzz/fuzz-NAME.c are libFuzzer targets, built with clang into build-fuzz/
# against the library objects instrumented there; tests/fuzz/run-fuzz.sh seeds the corpus
# from traces/ and runs each for FUZZ_SECONDS.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= snap chunk pages time db dat
FUZZ_MAKE = CC=clang BUILD=build-fuzz SANITIZE=fuzzer-no-link,address,undefined
FUZZ_BINS = $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz-*.c)) \
	    $(BUILD)/fuzz/mkseed
FUZZ_OBJS = $(LIB_OBJS) $(BUILD)/tests/fuzz/mini-cap.o

$(BUILD)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	$(Q)$(CC) $(CFLAGS) $(BC_CFLAGS) $(PKG_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) \
	  $(LDFLAGS) -fsanitize=fuzzer $(PKG_LIBS) -lm -lpthread

$(BUILD)/fuzz/mkseed: tests/fuzz/mkseed.c $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(BC_CFLAGS) $(PKG_CFLAGS) -o $@ $< $(FUZZ_OBJS) \
	  $(LDFLAGS) $(PKG_LIBS) -lm -lpthread

fuzz-bins: $(FUZZ_BINS)

fuzz:
	$(Q)./tests/ensure-deps.sh $(DEB_PKGS) $(FUZZ_DEB_PKGS)
	$(Q)$(MAKE) --no-print-directory $(FUZZ_MAKE) fuzz-bins
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/fuzz/run-fuzz.sh build-fuzz $(FUZZ_TARGETS)

run: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)
	$(Q)./tests/run-demo.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory $(BIN) $(BENCH_BINS) $(WORKLOAD)
	$(Q)./bench/run-bench.sh

# Man pages are made from each command's --help text (docs/mkman.sh): one source.
COMMANDS = check compare import info map predict query record replay report simulate snapshot
man: $(BIN)
	@mkdir -p $(BUILD)/man
	$(Q)for c in $(COMMANDS); do ./docs/mkman.sh ./$(BIN) $$c > $(BUILD)/man/bigchunk-$$c.1 || exit 1; done
	$(Q){ echo '.TH BIGCHUNK 1 "" "bigchunk" "bigchunk manual"'; echo '.SH NAME'; \
	  echo 'bigchunk \- would a large physically contiguous allocation succeed, and why not'; \
	  echo '.SH SYNOPSIS'; echo '.B bigchunk'; echo 'COMMAND [ARGS]'; echo '.SH COMMANDS'; \
	  ./$(BIN) help | awk '/^  [a-z]/ { c = $$1; $$1 = ""; sub(/^ +/, ""); \
	    printf ".TP\n.B %s\n%s (bigchunk-%s(1))\n", c, $$0, c }'; } > $(BUILD)/man/bigchunk.1

install: $(BIN) man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bigchunk
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/bigchunk
	install -m 0755 capture/bigchunk-snapshot.sh $(DESTDIR)$(PREFIX)/share/bigchunk/
	install -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf build build-asan build-fuzz bigchunk tests/check_bigchunk

.PHONY: all deps check check-kernels asan run bench install clean man fuzz fuzz-bins
# build/vm holds the QEMU rig's kernels and images (tests/vm/), no dependency files.
-include $(shell find $(BUILD) -path $(BUILD)/vm -prune -o -name '*.d' -type f -print 2>/dev/null)
