# tests.mk - test targets, included by the top Makefile.
#
# Layers (doc/development.md, "The tests"):
#   unit      Check suites on lib/ (tests/unit/*.c; every `Suite *x_suite(void)`
#             found there is run)
#   plugin    Check suites driving the plugin's callbacks against a stub SPANK
#             API (tests/plugin/)
#   artifact  the built plugin (exports, undefined symbols, dlopen metadata),
#             the layout (no call cycle in lib/ and runtime/, the rules of
#             spank/'s folders, each header alone), make install
#             and make uninstall (exactly the plugin, the tool, the man
#             pages and the plugstack snippet)
#   corpus    tests/recipes/: recipes through mooncake-recipe check/render
#   cluster   integration on a real Slurm cluster whose nodes are network
#             hosts on this machine (tests/cluster/)
#   matrix    all of the above on the other Slurm releases, in chroots
#             (tests/matrix/; make check-matrix)
#   oldest    the floor: build, unit and plugin tests on Debian 11's glibc,
#             gcc and Slurm headers, and no glibc symbol newer than 2.28
#             imported (make check-oldest)

UNIT_SRC := $(wildcard tests/unit/test_*.c) tests/unit/acceptance.c
UNIT_BIN := $(B)/tests/unit_tests
PLUGIN_TEST_SRC := $(wildcard tests/plugin/*.c)
PLUGIN_TEST_BIN := $(B)/tests/plugin_tests
# the plugin's objects minus the libslurm queries, which the tests fake
PLUGIN_TEST_OBJ := $(filter-out $(B)/spank/plugin/slurm.o,$(SPANK_OBJ))
TEST_CFLAGS := $(CFLAGS) $(CHECK_CFLAGS) -Itests/unit -Ispank -DMCK_TOP='"$(CURDIR)"' \
	-DMCK_TYPING='"$(abspath $(B))/tests/typing.tsv"' -Wno-missing-prototypes

$(B)/tests/suites.h: $(UNIT_SRC) tests/tests.mk
	@mkdir -p $(dir $@)
	@sed -n 's/^Suite \*\([a-z0-9_]*\)_suite(void)$$/SUITE(\1)/p' $(UNIT_SRC) >$@.tmp && mv $@.tmp $@

# the allocation functions the library calls, wrapped so that
# tests/unit/test_oom.c can make each of them fail in turn
UNIT_WRAP := $(foreach f,malloc calloc realloc strdup strndup asprintf vasprintf \
	__asprintf_chk __vasprintf_chk,-Wl,--wrap=$(f))

# the typing corpus: scalars and what PyYAML's safe_load makes of them
# (python3-yaml), checked by tests/unit/test_typing.c
$(B)/tests/typing.tsv: tests/unit/gen_typing.py
	@mkdir -p $(dir $@)
	@python3 $< >$@.tmp && mv $@.tmp $@

$(UNIT_BIN): tests/unit/main.c $(UNIT_SRC) tests/unit/testutil.h $(B)/tests/suites.h $(RT_A) $(LIB_A) \
		$(B)/tests/typing.tsv
	@echo "  LD      $@"
	@$(CC) $(TEST_CFLAGS) -I$(B)/tests $(LDFLAGS) $(UNIT_WRAP) -o $@ tests/unit/main.c \
		$(UNIT_SRC) $(RT_A) $(LIB_A) $(LIB_LIBS) $(CHECK_LIBS)

$(PLUGIN_TEST_BIN): $(PLUGIN_TEST_SRC) $(PLUGIN_TEST_OBJ) $(RT_A) $(LIB_A)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(TEST_CFLAGS) -I/usr/include $(LDFLAGS) -Wl,--wrap=gethostname,--wrap=__gethostname_chk -o $@ \
		$(PLUGIN_TEST_SRC) $(PLUGIN_TEST_OBJ) $(RT_A) $(LIB_A) $(LIB_LIBS) $(CHECK_LIBS)

$(B)/tests/dlopen_plugin: tests/artifact/dlopen_plugin.c
	@mkdir -p $(dir $@)
	@$(CC) $(CFLAGS) -o $@ $< -ldl

# The unit and plugin tests bind and probe ports on 127.0.0.1 (8700-8702
# among them): each runs in a network namespace of its own.
NETNS_RUN := tests/netns-run.sh

check-unit: $(UNIT_BIN) $(CLI)
	$(NETNS_RUN) $(UNIT_BIN)

# The plugin tests run in an environment of a few variables, whatever the
# caller's holds (a chroot's, where a step's recorded environment may begin
# with the plugin's own variable): they assert on parsed variables, never
# on what stands next to them.
check-plugin: $(PLUGIN_TEST_BIN)
	env -i PATH="$$PATH" LANG=C.UTF-8 $${TMPDIR:+TMPDIR="$$TMPDIR"} $(NETNS_RUN) $(PLUGIN_TEST_BIN)

IT := $(abspath $(B))/install-test
DEB_LIBDIR := /usr/lib/$(shell $(CC) -print-multiarch)
DEB_LAYOUT := PREFIX=/usr LIBDIR=$(DEB_LIBDIR) SLURM_PLUGINDIR=$(DEB_LIBDIR)/slurm-wlm

check-artifact: $(PLUGIN) $(CLI) $(B)/tests/dlopen_plugin $(LIB_OBJ) $(RT_OBJ) $(SPANK_OBJ)
	tests/artifact/check.sh $(PLUGIN) $(B)/tests/dlopen_plugin $(SLURM_LIBDIR)
	tests/artifact/arguments.sh $(CLI) doc/spank_mooncake.8
	CC="$(CC)" SLURM_CFLAGS="$(SLURM_CFLAGS)" tests/artifact/layout.sh $(LIB_OBJ) $(RT_OBJ) $(SPANK_OBJ)
	@# install + uninstall, in Debian's layout (DESTDIR empty before) and
	@# in the default one (over a file that must survive)
	rm -rf $(IT) && mkdir -p $(IT)
	$(MAKE) -s install DESTDIR=$(IT) $(DEB_LAYOUT) >/dev/null
	tests/artifact/installed.sh $(IT) /usr $(DEB_LIBDIR)/slurm-wlm
	$(MAKE) -s uninstall DESTDIR=$(IT) $(DEB_LAYOUT) >/dev/null
	tests/artifact/uninstalled.sh $(IT)
	mkdir -p $(IT)/usr/local/share/man/man1 && echo keep >$(IT)/usr/local/share/man/man1/other.1
	$(MAKE) -s install DESTDIR=$(IT) >/dev/null
	tests/artifact/installed.sh $(IT) /usr/local /usr/local/lib/slurm usr/local/share/man/man1/other.1
	$(MAKE) -s uninstall DESTDIR=$(IT) >/dev/null
	tests/artifact/uninstalled.sh $(IT) usr/local/share/man/man1/other.1

check-corpus: $(CLI)
	tests/recipes/run.sh $(CLI)
	@for f in examples/*.yaml; do $(CLI) check $$f || exit 1; done; \
		echo "examples/*.yaml: every example passes mooncake-recipe check"

# The engines' own readers (tests/contract/): the vLLM and SGLang wheels
# from PyPI (downloaded once, cached in MCK_ENGINES, by default
# /var/cache/spank-mooncake/engines), TRT-LLM's contract
# (doc/engine-contracts.md), on every valid recipe of the corpus and every
# example, and on spellings of each size check accepts or refuses; once per
# pair of the pinned releases (the n-th vLLM with the n-th SGLang), the
# releases users run. Others: make check-contract MCK_VLLM_VERSIONS=X
# MCK_SGLANG_VERSIONS=Y
MOONCAKE_VENV ?= /opt/spank-mooncake/venv
MCK_VLLM_VERSIONS ?= 0.34.0 0.33.0
MCK_SGLANG_VERSIONS ?= 0.5.23 0.5.22
export MCK_VLLM_VERSIONS MCK_SGLANG_VERSIONS
CONTRACT_SETUPS := $(B)/contract-setups.jsonl
check-contract: $(CLI)
	tests/contract/fetch.sh
	@rm -f $(CONTRACT_SETUPS)
	set -e; set -- $(MCK_SGLANG_VERSIONS); for v in $(MCK_VLLM_VERSIONS); do \
		MCK_VLLM_VERSION=$$v MCK_SGLANG_VERSION=$$1 $(MOONCAKE_VENV)/bin/python tests/contract/run.py \
			--setups $(CONTRACT_SETUPS) $(CLI) tests/recipes/valid/*.yaml examples/*.yaml; \
		if [ $$# -gt 1 ]; then shift; fi; \
	done

# The live layer (tests/contract/live.py): what each release's reader
# derived in check-contract goes to a real setup() of the wheel's Mooncake
# client against real masters (and an etcd) in a network namespace that
# holds every address the readers name; a put and a get must work. On the
# host's Slurm release only (check-matrix runs make check CHECK_LIVE=).
check-live: check-contract
	$(NETNS_RUN) $(MOONCAKE_VENV)/bin/python tests/contract/live.py $(CONTRACT_SETUPS)
CHECK_LIVE ?= check-live

# A report, not a test: whether PyPI has a release of vLLM or SGLang newer
# than the pinned ones, and the contract on it (one line, at most
# ENGINES_LATEST_SECONDS; it downloads only such a release). Never fails.
ENGINES_LATEST_SECONDS ?= 600
.PHONY: engines-latest check-live
engines-latest: $(CLI)
	@ENGINES_LATEST_SECONDS=$(ENGINES_LATEST_SECONDS) MOONCAKE_VENV=$(MOONCAKE_VENV) \
		tests/contract/latest.sh $(CLI) || true

# A stand-in for pyxis 0.24 on the test cluster (tests/cluster/pyxis_standin.c):
# pyxis's options, recorded per step, and one container per step for the
# images it holds (test_pyxis.sh).
PYXIS_STANDIN := $(B)/tests/pyxis_standin.so
$(PYXIS_STANDIN): tests/cluster/pyxis_standin.c
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) -shared $(LDFLAGS) -o $@ $<

# Root only: a cluster of network hosts (namespaces) with munge, slurmctld
# and four slurmd (see tests/cluster/).
check-cluster: all $(PYXIS_STANDIN)
	tests/setup.sh
	tests/contract/fetch.sh
	tests/cluster/run.sh

# Root only: what we ship is what we test. The packages of `make deb`
# (build/deb), or of `make rpm` with PACKAGES=$(B)/rpm, unpacked into
# $(B)/pkgroot, the test cluster's plugstack.conf pointed at the packaged
# plugin, and the TRT-LLM example job run through it (any cluster test runs
# against another plugin the same way: MCK_PLUGIN=).
PACKAGES ?= $(B)/deb
check-package:
	rm -rf $(B)/pkgroot
	MCK_PLUGIN=$$(tests/package/unpack.sh $(PACKAGES) $(B)/pkgroot) && \
		MCK_LABEL=package-$(notdir $(PACKAGES)) MCK_PLUGIN=$$MCK_PLUGIN tests/cluster/run.sh test_trtllm.sh

# Root only: tests/setup.sh, make all and make check on Slurm 24.11 (Debian
# trixie) and 26.05 (sid), each in a chroot of its own (tests/matrix/).
MATRIX ?= trixie sid
check-matrix:
	tests/matrix/run.sh $(MATRIX)

# The glibc floor of what is shipped (README, "Requirements"): nothing imports
# a glibc symbol newer than GLIBC_FLOOR (RHEL 8's 2.28). Holds only where the
# build's glibc is old enough not to version old calls anew (2.31 of Debian
# 11: check-oldest runs it there).
GLIBC_FLOOR := 2.28
check-glibc: $(PLUGIN) $(CLI)
	tests/artifact/glibc.sh $(GLIBC_FLOOR) $(PLUGIN) $(CLI)

# Root only: the floor, in a Debian 11 (bullseye) chroot of tests/matrix/
# (cached, as check-matrix's): glibc 2.31, gcc 10, Slurm 20.11's headers;
# tests/setup.sh build, make all, check-unit, check-plugin, check-glibc.
check-oldest:
	tests/matrix/run.sh bullseye

check: all check-unit check-plugin check-artifact check-corpus check-contract $(CHECK_LIVE) check-cluster

# The C style (.clang-format): make format rewrites the sources, make
# check-format fails on any that differ. Checked with clang-format 14, the
# one of Debian 12 that CI runs (another release formats some lines
# otherwise), on the host only.
CLANG_FORMAT ?= clang-format
FORMAT_SRC = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
.PHONY: format check-format
format:
	$(CLANG_FORMAT) -i --style=file $(FORMAT_SRC)
check-format:
	@v=$$($(CLANG_FORMAT) --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\..*/\1/p'); [ "$$v" = 14 ] || \
		{ echo "make check-format: needs clang-format 14 (Debian 12's; tests/setup.sh installs it), found '$${v:-none}' (CLANG_FORMAT=$(CLANG_FORMAT))" >&2; exit 2; }
	@[ -n "$(FORMAT_SRC)" ] || { echo "make check-format: no sources (not a git checkout?)" >&2; exit 2; }
	$(CLANG_FORMAT) --dry-run --Werror --style=file $(FORMAT_SRC)
	@echo "PASS: the $(words $(FORMAT_SRC)) C files are formatted as .clang-format says"

# The unit suite, the plugin tests and the corpus under AddressSanitizer and
# UndefinedBehaviorSanitizer, in a build tree of their own.
# Other compiler flags than the default -O2 (a distribution's, a
# developer's -O0 -g): everything, the test programs too, builds with the
# same warnings as errors (gcc's truncation checks see other code at -O0)
check-o0:
	$(MAKE) -s B=build-o0 OPT="-O0 -g" all build-o0/tests/unit_tests build-o0/tests/plugin_tests \
		build-o0/tests/bench build-o0/tests/plugin_bench >/dev/null
	@echo "build-o0: everything builds at -O0"

sanitize:
	$(MAKE) B=build-san OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" build-san/mooncake-recipe \
		build-san/tests/unit_tests build-san/tests/plugin_tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(NETNS_RUN) build-san/tests/unit_tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(NETNS_RUN) build-san/tests/plugin_tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/recipes/run.sh build-san/mooncake-recipe

# Line coverage of lib/, runtime/ and spank/ by the fast layers (unit, plugin,
# corpus), in a build tree of its own; spank/plugin/slurm.c is Slurm-query
# glue the plugin tests replace. gcovr comes from Debian (tests/setup.sh).
COV := build-cov
coverage:
	@command -v gcovr >/dev/null || tests/setup.sh coverage
	rm -rf $(COV)
	$(MAKE) -s B=$(COV) OPT="-O0 -g --coverage -DMCP_COVERAGE" LDFLAGS="--coverage" \
		$(COV)/mooncake-recipe $(COV)/tests/unit_tests $(COV)/tests/plugin_tests
	$(NETNS_RUN) $(COV)/tests/unit_tests >$(COV)/unit.log 2>&1 || { tail -20 $(COV)/unit.log; exit 1; }
	$(NETNS_RUN) $(COV)/tests/plugin_tests >$(COV)/plugin.log 2>&1 || { tail -20 $(COV)/plugin.log; exit 1; }
	tests/recipes/run.sh $(COV)/mooncake-recipe >$(COV)/corpus.log 2>&1 || { tail -20 $(COV)/corpus.log; exit 1; }
	@tail -qn1 $(COV)/unit.log $(COV)/plugin.log $(COV)/corpus.log
	@gcovr -r . --object-directory $(COV) -f 'lib/' -s | grep -v '^Directory\|^-*$$\|^File\|^ *GCC Code'
	@gcovr -r . --object-directory $(COV) -f 'runtime/' -s | grep -v '^Directory\|^-*$$\|^File\|^ *GCC Code'
	@gcovr -r . --object-directory $(COV) -f 'spank/' -e 'spank/plugin/slurm.c' -s | \
		grep -v '^Directory\|^-*$$\|^File\|^ *GCC Code'

demo: all
	tests/setup.sh
	tests/demo.sh

# libFuzzer (tests/fuzz/), each target built with clang,
# -fsanitize=fuzzer,address,undefined, in a build tree of its own, over a
# corpus kept between runs (build-fuzz/corpus/<target>) and seeded from the
# tree:
#   recipe    load, validation and every render; seeds examples/ and
#             tests/recipes/; FUZZ_SECONDS long (default 60)
# and every reader of what another party controls, FUZZ_READER_SECONDS
# each (default 30): pool (the master's HTTP answers, its Prometheus
# text, the samples), records (state, proof, lock, worker records),
# registry (the ports registry), handover (the task's handover
# variable); seeds tests/fuzz/seeds/<target>/ and tests/unit/fixtures/.
# The pool's inputs go up to the 16 MiB its reader takes, and then the
# largest page it takes (written by tests/bench/pool_bench.c) and
# FUZZ_LARGE_RUNS (default 24) mutations of it run on their own.
# A finding leaves its input in build-fuzz/<target>-* (crash-, leak-,
# timeout-, oom-) and fails the target. clang and its runtime:
# tests/setup.sh.
FUZZ := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_READER_SECONDS ?= 30
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OPT := -O1 -g -fno-omit-frame-pointer
FUZZ_READERS := pool records registry handover
FUZZ_RUN := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
FUZZ_ARGS := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
# each reader's inputs as long as it takes: the pool's answers up to
# MCRI_METRICS_MAX (runtime/pool/pool.h), the others' 64 KiB
FUZZ_MAXLEN_pool := 16777216
FUZZ_MAXLEN := 65536
FUZZ_LARGE_RUNS ?= 24
# what each reader's target links besides the runtime and the library
FUZZ_LINK_registry := $(FUZZ)/spank/steps/ports.o
FUZZ_LINK_handover := $(FUZZ)/spank/plugin/handover.o
.PHONY: fuzz fuzz-bin
fuzz-bin:
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz: $(FUZZ_CC) is missing (tests/setup.sh installs clang)" >&2; exit 2; }
	$(MAKE) -s B=$(FUZZ) CC=$(FUZZ_CC) OPT="$(FUZZ_OPT) -fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
		$(FUZZ)/libmooncake_recipe.a $(FUZZ)/libmooncake_runtime.a \
		$(FUZZ)/spank/steps/ports.o $(FUZZ)/spank/plugin/handover.o
	$(FUZZ_CC) $(FUZZ_OPT) -fsanitize=fuzzer $(FUZZ_SAN) -Ilib \
		-o $(FUZZ)/fuzz_recipe tests/fuzz/fuzz_recipe.c $(FUZZ)/libmooncake_recipe.a $(LIB_LIBS)
	for t in $(FUZZ_READERS); do \
		$(FUZZ_CC) $(FUZZ_OPT) -fsanitize=fuzzer $(FUZZ_SAN) -Ilib -Iruntime -Ispank \
			-o $(FUZZ)/fuzz_$$t tests/fuzz/fuzz_$$t.c $$(case $$t in \
			registry) echo "$(FUZZ_LINK_registry)";; handover) echo "$(FUZZ_LINK_handover)";; esac) \
			$(FUZZ)/libmooncake_runtime.a $(FUZZ)/libmooncake_recipe.a $(LIB_LIBS) || exit 1; \
	done
fuzz: fuzz-bin $(B)/tests/pool_bench
	@mkdir -p $(FUZZ)/corpus/recipe
	@for f in examples/*.yaml tests/recipes/*/*.yaml; do \
		cp -n "$$f" "$(FUZZ)/corpus/recipe/seed-$$(echo "$$f" | tr / _)"; done
	$(FUZZ_RUN) $(FUZZ)/fuzz_recipe -max_total_time=$(FUZZ_SECONDS) $(FUZZ_ARGS) -max_len=$(FUZZ_MAXLEN) \
		-dict=tests/fuzz/recipe.dict -artifact_prefix=$(FUZZ)/recipe- $(FUZZ)/corpus/recipe
	@for f in tests/unit/fixtures/*.txt tests/unit/fixtures/*.json; do \
		mkdir -p $(FUZZ)/corpus/pool && cp -n "$$f" "$(FUZZ)/corpus/pool/seed-$$(basename "$$f")"; done
	@# the readers' job directories under $(FUZZ)/tmp, gone after the run
	for t in $(FUZZ_READERS); do \
		mkdir -p $(FUZZ)/corpus/$$t $(FUZZ)/tmp && cp -n tests/fuzz/seeds/$$t/* $(FUZZ)/corpus/$$t/ && \
		TMPDIR=$(abspath $(FUZZ))/tmp $(FUZZ_RUN) $(FUZZ)/fuzz_$$t -max_total_time=$(FUZZ_READER_SECONDS) \
			$(FUZZ_ARGS) -max_len=$$(case $$t in pool) echo $(FUZZ_MAXLEN_pool);; *) echo $(FUZZ_MAXLEN);; esac) \
			-artifact_prefix=$(FUZZ)/$$t- $(FUZZ)/corpus/$$t || exit 1; \
	done
	@# the largest page the pool's reader takes and FUZZ_LARGE_RUNS mutations
	@# of it (a run of its own: at about a second each, they would starve
	@# the small inputs of the run above), in a corpus of their own, gone after
	rm -rf $(FUZZ)/large-pool && mkdir -p $(FUZZ)/large-pool && \
		$(B)/tests/pool_bench tests/unit/fixtures/metrics_0.3.13.post1.txt --write $(FUZZ)/large-pool/largest-page
	TMPDIR=$(abspath $(FUZZ))/tmp $(FUZZ_RUN) $(FUZZ)/fuzz_pool -runs=$(FUZZ_LARGE_RUNS) $(FUZZ_ARGS) \
		-max_len=$(FUZZ_MAXLEN_pool) -artifact_prefix=$(FUZZ)/pool- $(FUZZ)/large-pool
	rm -rf $(FUZZ)/tmp $(FUZZ)/large-pool

# make bench: ratios measured side by side in one run (tests/bench/): the
# library's (bench-lib: the CLI against /bin/true, time per item at 10x,
# 100x and 1000x of each shape, the loader against PyYAML's safe_load),
# the pool's metrics reader (bench-pool: time per segment from 64 to 65536
# segments, the largest page it takes, peak memory of each), then the
# plugin's (bench-plugin: per task, per node, per joining srun and
# readiness against the SPANK stub, in a network namespace of its own; as
# root, on the test cluster: srun with and without a role, srun_bench.sh;
# the first srun and the first wave of a pool against the floor, and status
# against fetching the metrics by hand, wave_bench.sh; a first wave with a
# memory lender on each of its nodes against the same wave without,
# lender_bench.sh; the time from kill -9
# of the master, and from a hung master, to the first working put+get,
# keep_bench.sh; what a starter that died costs the next srun,
# takeover_bench.sh; and kill -9 of an HA pool's leader, ha_bench.sh).
# Needs python3 and python3-yaml (tests/setup.sh).
BENCH_PARTS := bench-lib bench-pool bench-plugin
.PHONY: bench-lib bench-pool bench-plugin bench-bin
bench: $(BENCH_PARTS)

# the benchmarks' programs, built (not run) by CI so that they keep building
bench-bin: $(B)/tests/bench $(B)/tests/pool_bench $(B)/tests/plugin_bench

bench-lib: $(B)/tests/bench $(CLI)
	rm -rf $(B)/bench-work && mkdir -p $(B)/bench-work
	$(B)/tests/bench $(CURDIR) $(abspath $(CLI)) $(abspath $(B))/bench-work

# the pool's metrics reader (status, the sampler), up to the largest page
# it takes (runtime/pool/pool.h)
bench-pool: $(B)/tests/pool_bench
	$(B)/tests/pool_bench tests/unit/fixtures/metrics_0.3.13.post1.txt

bench-plugin: $(B)/tests/plugin_bench $(PLUGIN)
	$(NETNS_RUN) $(B)/tests/plugin_bench
	tests/bench/srun_bench.sh
	tests/bench/wave_bench.sh
	tests/bench/lender_bench.sh
	tests/bench/keep_bench.sh
	tests/bench/takeover_bench.sh
	tests/bench/ha_bench.sh

PLUGIN_BENCH_SRC := tests/bench/plugin_bench.c tests/plugin/stub.c tests/plugin/fake_master.c
$(B)/tests/plugin_bench: $(PLUGIN_BENCH_SRC) $(PLUGIN_TEST_OBJ) $(RT_A) $(LIB_A)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(TEST_CFLAGS) -Itests/plugin $(LDFLAGS) -Wl,--wrap=gethostname,--wrap=__gethostname_chk -o $@ $(PLUGIN_BENCH_SRC) \
		$(PLUGIN_TEST_OBJ) $(RT_A) $(LIB_A) $(LIB_LIBS)

$(B)/tests/pool_bench: tests/bench/pool_bench.c $(RT_A) $(LIB_A)
	@mkdir -p $(dir $@)
	@$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(RT_A) $(LIB_A) $(LIB_LIBS)

$(B)/tests/bench: tests/bench/bench.c $(LIB_A)
	@mkdir -p $(dir $@)
	@$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_A) $(LIB_LIBS)
