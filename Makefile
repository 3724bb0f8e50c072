# Arbiter - build, test, bench, install.
#
#   make              build/libarbiter.a and build/arbiter
#   make test         install missing Debian packages, build, run unit and command-line tests
#   make demo         run the bundled example, judged by the test judge (offline)
#   make bench        print throughput figures (not a test)
#   make SANITIZE=address,undefined test    the same tests under ASan/UBSan (in build-san/)
#   make WERROR=1     warnings are errors (CI)
#   make V=1          print the compiler and archiver commands (quiet by default)
#   make install PREFIX=/usr/local DESTDIR=   make uninstall   make clean   make fmt

CC ?= cc
PKG_CONFIG ?= pkg-config
OBJCOPY ?= objcopy
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
CFLAGS ?= -O2 -g
LDFLAGS ?=

# The one version string: `arbiter --version` prints it, every run and calibration records it.
VERSION = 0.1.0

PKGS = libcjson libpcre2-8 libcrypto libcurl sqlite3 libmicrohttpd
# Debian packages a build and its tests need: make deps installs the missing ones.
DEB_PACKAGES = pkg-config libcjson-dev libpcre2-dev libssl-dev libcurl4-openssl-dev \
               libsqlite3-dev libcriterion-dev libmicrohttpd-dev curl chromium sqlite3 \
               json-schema-test-suite strace

ifdef SANITIZE
BUILD ?= build-san
SAN_FLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD ?= build
SAN_FLAGS =
endif

WARN = -Wall -Wextra -pedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif

# Quiet by default, as git and Linux build: one short line per step ("  CC  src/run/run.c"),
# and no "Nothing to be done" from the sub-makes; V=1 prints each command in full instead.
ifeq ($(V),1)
QUIET_CC =
QUIET_AR =
QUIET_LD =
SUBMAKE = $(MAKE) --no-print-directory
else
SUBMAKE = $(MAKE) --no-print-directory -s
QUIET_CC = @printf '  CC  %s\n' '$<';
QUIET_AR = @printf '  AR  %s\n' '$@';
QUIET_LD = @printf '  LD  %s\n' '$@';
endif

# Recursive (=) so pkg-config runs when a recipe needs it, after make deps.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS)) -lm -pthread
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude $(WARN) $(SAN_FLAGS) $(CFLAGS) \
             $(PKG_CFLAGS)
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)

LIB_SRC = $(sort $(filter-out src/cli/%,$(wildcard src/*/*.c)))
CLI_SRC = $(sort $(wildcard src/cli/*.c))
TEST_SRC = $(sort $(wildcard tests/unit/*.c))
BENCH_SRC = $(sort $(wildcard bench/*.c))
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)

.PHONY: FORCE all deps test check test-unit test-cli demo bench bench-peers clean install uninstall \
        fmt valgrind test-schema-suite

all: $(BUILD)/libarbiter.a $(BUILD)/arbiter

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# Only the command line knows the version (cli.h refuses to build without it).  VERSION-FILE
# changes only when VERSION does, so a new version rebuilds src/cli/ and nothing else.
$(CLI_OBJ): ALL_CFLAGS += -DARBITER_VERSION='"$(VERSION)"'
$(CLI_OBJ): $(BUILD)/VERSION-FILE
$(BUILD)/VERSION-FILE: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@

# The library is one relocatable object whose only global symbols are its API (arb_*): the
# modules' shared internals (judge_*, store_*, op_*, html_*...) are made local, so nothing
# of the library's insides can clash with a program that links it (`nm -g` shows arb_* only).
# The unit tests, which test those internals, link the objects themselves.
$(BUILD)/libarbiter.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(QUIET_AR)rm -f $@ $(BUILD)/libarbiter.o && \
	    $(LD) -r -o $(BUILD)/libarbiter.o $(LIB_OBJ) && \
	    $(OBJCOPY) --wildcard --keep-global-symbol='arb_*' $(BUILD)/libarbiter.o && \
	    $(AR) rcs $@ $(BUILD)/libarbiter.o

$(BUILD)/arbiter: $(CLI_OBJ) $(BUILD)/libarbiter.a
	$(QUIET_LD)$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libarbiter.a $(PKG_LIBS)

$(BUILD)/unit-tests: $(TEST_OBJ) $(LIB_OBJ)
	$(QUIET_LD)$(CC) $(ALL_LDFLAGS) -o $@ $(TEST_OBJ) $(LIB_OBJ) $(PKG_LIBS) -lcriterion

$(BUILD)/bench/%: bench/%.c $(BUILD)/libarbiter.a
	@mkdir -p $(dir $@)
	$(QUIET_LD)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libarbiter.a $(PKG_LIBS)

# The test judge: a real HTTP server the tests start on 127.0.0.1 (not part of the library).
JUDGE_SIM_SRC = $(sort $(wildcard tests/judge_sim/*.c))
$(BUILD)/judge_sim: $(JUDGE_SIM_SRC) $(wildcard tests/judge_sim/*.h)
	@mkdir -p $(dir $@)
	$(QUIET_LD)$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(WARN) $(SAN_FLAGS) $(CFLAGS) \
	    $(shell $(PKG_CONFIG) --cflags libmicrohttpd libcjson libcrypto) -o $@ $(JUDGE_SIM_SRC) \
	    $(shell $(PKG_CONFIG) --libs libmicrohttpd libcjson libcrypto) -lpthread

$(BUILD)/schema-suite: tests/schema_suite/run_suite.c $(BUILD)/libarbiter.a
	@mkdir -p $(dir $@)
	$(QUIET_LD)$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libarbiter.a $(PKG_LIBS)

# Every required test of draft 7 and 2020-12 from the official JSON-Schema-Test-Suite: the
# snapshot in tests/data (both drafts; see its SOURCE.md), then the copy Debian's
# json-schema-test-suite package installs (older: no 2020-12 folder, the runner says so).
# SCHEMA_SUITE=DIR runs another copy instead of Debian's, a newer upstream checkout for example.
SCHEMA_SUITE ?= /usr/share/json-schema-test-suite
test-schema-suite: deps
	@$(SUBMAKE) $(BUILD)/schema-suite
	$(BUILD)/schema-suite tests/data/json-schema-test-suite
	$(BUILD)/schema-suite $(SCHEMA_SUITE)

deps:
	@sh tools/deps.sh $(DEB_PACKAGES)

# The sub-make runs after deps, so pkg-config sees freshly installed packages.
test: deps
	@$(SUBMAKE) all $(BUILD)/unit-tests $(BUILD)/judge_sim $(BUILD)/schema-suite
	@$(SUBMAKE) test-unit test-cli
	@$(SUBMAKE) test-browser
	@$(BUILD)/schema-suite tests/data/json-schema-test-suite >$(BUILD)/schema-suite.log || \
	    { cat $(BUILD)/schema-suite.log; exit 1; }
	@echo "schema-suite: $$(tail -1 $(BUILD)/schema-suite.log)"
	@bad=$$(nm -g --defined-only $(BUILD)/libarbiter.a | \
	    awk '$$2 ~ /^[TDBRCGSVW]$$/ && $$3 !~ /^arb_/ {print $$3}'); \
	    if [ -n "$$bad" ]; then echo "symbols: libarbiter.a exports names without arb_: $$bad"; \
	    exit 1; else echo "symbols: libarbiter.a exports arb_* only"; fi

check: test

test-unit:
	$(BUILD)/unit-tests --jobs=2

test-cli:
	@sh tests/cli/run.sh $(BUILD)/arbiter
	@sh tests/cli/resume.sh $(BUILD)/arbiter
	@sh tests/cli/inputs.sh $(BUILD)/arbiter
	@sh tests/cli/tune.sh $(BUILD)/arbiter
	@sh tests/cli/trials.sh $(BUILD)/arbiter
	@sh tests/cli/statistical.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/matrix.sh $(BUILD)/arbiter
	@sh tests/cli/csv.sh $(BUILD)/arbiter
	@sh tests/cli/collide.sh $(BUILD)/arbiter
	@sh tests/judge_sim/smoke.sh $(BUILD)/judge_sim
	@sh tests/judge_sim/batch_smoke.sh $(BUILD)/judge_sim
	@sh tests/cli/judge.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/compare_labels.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/compare_feedback.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/budget.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/canary.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/calibrate_expect.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/report/html.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/replay.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/recorded.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/rejudge.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/faults.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/kill_judge.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/judge_batch.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/judge_overlap.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/run_lock.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/identity.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/nofiles.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/judge_failures.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/failure_reasons.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/show_case.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/calibrate_procedure.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/labels.sh $(BUILD)/arbiter
	@sh tests/cli/shard.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/criterion_text.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/providers.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/provider_runs.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/promises.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/strategies.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/llm_judge.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/cli/view.sh $(BUILD)/arbiter $(BUILD)/judge_sim
	@sh tests/bad-input/run.sh $(BUILD)/arbiter

# Browser tests of `arbiter view` (tests/browser/README.md): Debian's chromium driven over the
# DevTools protocol by puppeteer-core from the npm registry, which `npm ci` installs from the
# committed lock file into tests/browser/node_modules (again whenever the lock file changes).
# Node.js and npm come with the machine; where they do not, Debian's nodejs and npm.
.PHONY: test-browser screenshots
BROWSER_TESTS = $(sort $(wildcard tests/browser/*.test.mjs))
BROWSER_STAMP = tests/browser/node_modules/.package-lock.json
$(BROWSER_STAMP): tests/browser/package.json tests/browser/package-lock.json
	@command -v node >/dev/null && command -v npm >/dev/null || sh tools/deps.sh nodejs npm
	cd tests/browser && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

test-browser: deps
	@$(SUBMAKE) all $(BUILD)/judge_sim $(BROWSER_STAMP)
	@st=0; for t in $(BROWSER_TESTS); do \
	    node $$t $(BUILD)/arbiter $(BUILD)/judge_sim || st=1; done; exit $$st

# PNGs of the pages for the README (1280 x 800) into docs/screenshots/.
screenshots: deps
	@$(SUBMAKE) all $(BUILD)/judge_sim $(BROWSER_STAMP)
	@node tests/browser/screenshots.mjs $(BUILD)/arbiter $(BUILD)/judge_sim docs/screenshots

# The bundled bake-off, offline, with tests/judge_sim as a command judge (examples/demo.sh).
demo: deps
	@$(SUBMAKE) all $(BUILD)/judge_sim
	@sh examples/demo.sh $(BUILD)/arbiter $(BUILD)/judge_sim

bench: deps
	@$(SUBMAKE) all $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
	@for b in $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%); do echo "== $$b"; $$b || exit 1; done
	@echo "== bench/batch.sh"; sh bench/batch.sh $(BUILD)/arbiter
	@echo "== bench/run.sh"; sh bench/run.sh $(BUILD)/arbiter 10000 1000000
	@$(SUBMAKE) $(BUILD)/judge_sim
	@echo "== bench/judge.sh"; sh bench/judge.sh $(BUILD)/arbiter $(BUILD)/judge_sim 1000 200 32
	@echo "== bench/view.sh"; sh bench/view.sh $(BUILD)/arbiter $(BUILD)/judge_sim 100000

# Side by side with the peers (installs promptfoo from the npm registry into bench/peers/).
bench-peers: deps
	@$(SUBMAKE) all $(BUILD)/judge_sim
	@sh bench/peers/run.sh $(BUILD)/arbiter 10000
	@sh bench/peers/judge.sh $(BUILD)/arbiter $(BUILD)/judge_sim 500 200

# Arbiter's side of bench-peers' judge workload alone (no npm): 500 judgments of 200 ms at
# concurrency 16 and 64, and at 16 with faults; the best ratio to ideal of 3 runs and the range.
.PHONY: bench-judge
bench-judge: deps
	@$(SUBMAKE) all $(BUILD)/judge_sim
	@sh bench/judge_faults.sh $(BUILD)/arbiter $(BUILD)/judge_sim 500 200 3

valgrind: deps
	@$(SUBMAKE) all
	@VALGRIND="valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect -q" \
	    sh tests/cli/run.sh $(BUILD)/arbiter

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/arbiter
	install -m 755 $(BUILD)/arbiter $(DESTDIR)$(BINDIR)/arbiter
	install -m 644 $(BUILD)/libarbiter.a $(DESTDIR)$(LIBDIR)/libarbiter.a
	install -m 644 include/arbiter/*.h $(DESTDIR)$(INCLUDEDIR)/arbiter/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/arbiter $(DESTDIR)$(LIBDIR)/libarbiter.a
	rm -rf $(DESTDIR)$(INCLUDEDIR)/arbiter

fmt:
	clang-format -i $(LIB_SRC) $(CLI_SRC) $(TEST_SRC) $(BENCH_SRC) include/arbiter/*.h

# libFuzzer targets, one per parser: make fuzz [FUZZ_SECONDS=N] (tests/fuzz/README.md).
include tests/fuzz/fuzz.mk

clean:
	rm -rf build build-san build-fuzz

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
