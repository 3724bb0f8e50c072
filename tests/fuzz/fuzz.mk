# tests/fuzz/fuzz.mk - libFuzzer targets, one per parser (tests/fuzz/README.md).
# Included from the Makefile after LIB_SRC, WARN, PKGS, PKG_CFLAGS / PKG_LIBS and the
# QUIET_* prefixes (make V=1 prints the commands) are set.
#
#   make fuzz                        build every target into build-fuzz/, run each 30 s
#   make fuzz FUZZ_SECONDS=600       run each for ten minutes
#   make fuzz FUZZ_MERGE=1           also merge new coverage into tests/fuzz/corpus/
#   make fuzz FUZZ_SEED=N            another libFuzzer seed (default 1: CI explores the same way)
#   make fuzz-build                  build only
#
# Each run works on a copy of its corpus in build-fuzz/corpus/<target>/, so the
# repository's corpus changes only with FUZZ_MERGE=1.  A crash, leak, sanitizer
# report or timeout stops make; the reproducer is build-fuzz/crash-<target>-*.

FUZZ_CC ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 30
FUZZ_MERGE ?= 0
FUZZ_TARGETS = suite check reply schema jcs outputs labels view grader form
FUZZ_SEED ?= 1
FUZZ_OPTS = -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -dict=tests/fuzz/json.dict -seed=$(FUZZ_SEED)

FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude $(WARN) -g -O1 $(FUZZ_SAN) \
              $(PKG_CFLAGS)
FUZZ_LIB_OBJ = $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BIN = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: fuzz fuzz-build fuzz-run

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/libarbiter.a: $(FUZZ_LIB_OBJ)
	$(QUIET_AR)rm -f $@ && $(AR) rcs $@ $(FUZZ_LIB_OBJ)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_tmp.h $(FUZZ_BUILD)/libarbiter.a
	$(QUIET_LD)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/libarbiter.a $(PKG_LIBS)

fuzz-build: $(FUZZ_BIN)

# Standard input is /dev/null so an input naming /dev/stdin as a file cannot block.
fuzz-run:
	@for t in $(FUZZ_TARGETS); do \
	    echo "== fuzz_$$t ($(FUZZ_SECONDS) s)"; \
	    rm -rf $(FUZZ_BUILD)/corpus/$$t && mkdir -p $(FUZZ_BUILD)/corpus/$$t && \
	    cp tests/fuzz/corpus/$$t/* $(FUZZ_BUILD)/corpus/$$t/ && \
	    $(FUZZ_BUILD)/fuzz_$$t $(FUZZ_OPTS) -max_total_time=$(FUZZ_SECONDS) \
	        -artifact_prefix=$(FUZZ_BUILD)/crash-$$t- $(FUZZ_BUILD)/corpus/$$t </dev/null \
	        >$(FUZZ_BUILD)/fuzz_$$t.log 2>&1 || \
	        { tail -n 60 $(FUZZ_BUILD)/fuzz_$$t.log; echo "fuzz_$$t failed"; exit 1; }; \
	    grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb)' \
	        $(FUZZ_BUILD)/fuzz_$$t.log; \
	    if [ "$(FUZZ_MERGE)" = 1 ]; then \
	        $(FUZZ_BUILD)/fuzz_$$t -merge=1 tests/fuzz/corpus/$$t $(FUZZ_BUILD)/corpus/$$t \
	            </dev/null >>$(FUZZ_BUILD)/fuzz_$$t.log 2>&1 || exit 1; \
	    fi; \
	done

fuzz: deps
	@sh tools/deps.sh clang libclang-rt-14-dev
	@$(SUBMAKE) fuzz-build
	@$(SUBMAKE) fuzz-run

-include $(FUZZ_LIB_OBJ:.o=.d)
