# spank-mooncake: the spank_mooncake.so SPANK plugin and the mooncake-recipe
# tool, over the recipe library of lib/ (a static archive of the build, not
# installed: doc/libmooncake_recipe.md).
#
#   make            build everything into build/
#   make check      unit tests (Check), plugin tests (stub SPANK), artifact
#                   checks, recipe corpus, the engines' own readers on it
#                   (the pinned vLLM and SGLang wheels), what they derive
#                   given to a real Mooncake client and master (check-live),
#                   then integration tests on a Slurm cluster of network
#                   hosts on this machine (tests/cluster/); needs root for
#                   the live layer and the cluster
#   make engines-latest  one line: a vLLM or SGLang on PyPI newer than the
#                   pinned ones, and the contract on it (a report, never fails)
#   make check-matrix  the same on Slurm 24.11 and 26.05, in Debian chroots
#   make check-oldest  the floor: build, unit and plugin tests on Debian 11
#                   (glibc 2.31, gcc 10, Slurm 20.11), no glibc symbol past 2.28
#   make check-unit the fast part of `make check` (no cluster)
#   make sanitize   unit suite and corpus under ASan + UBSan
#   make coverage   line coverage of lib/ and spank/ by the fast layers (gcovr)
#   make demo       test cluster + the example TRT-LLM job, shown step by step
#   make bench      ratios: the CLI vs /bin/true, time per item at 10x/100x/1000x,
#                   the loader vs PyYAML safe_load (then the plugin's costs)
#   make fuzz       libFuzzer over load, validation and renders (FUZZ_SECONDS=60)
#   make install    PREFIX=/usr/local DESTDIR= (plugin in $(SLURM_PLUGINDIR)):
#                   the plugin, the tool, the man pages, the plugstack snippet
#   make uninstall  the same variables: removes what install wrote
#   make deb        Debian packages of HEAD from a clean clone, checked by lintian
#   make dist       build/spank-mooncake-VERSION.tar.gz of HEAD, with the spec
#                   (rpmbuild -ta)
#   make rpm        RPMs of that tarball (rpmbuild -ta), checked by rpmlint
#   make check-package  the TRT-LLM example job on the test cluster with the
#                   packaged plugin (after make deb; PACKAGES=build/rpm after
#                   make rpm)
#   make -s slurm-plugindir  where the installed Slurm loads plugins from

# The release (debian/changelog and spank-mooncake.spec carry the same)
VERSION := 0.6.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
SLURM_PLUGINDIR ?= $(LIBDIR)/slurm

CC ?= gcc
B := build
# Headers and libraries: pkg-config where the package has a .pc (libyaml's
# yaml-0.1, jansson, check; Slurm's slurm.pc from 24.05 on), else the plain
# names (headers in the compiler's own path, as Debian's libslurm-dev and
# RHEL's slurm-devel of Slurm before 24.05 put slurm/spank.h under
# /usr/include). SLURM_CFLAGS=-I/opt/slurm/include for a Slurm elsewhere.
pc_cflags = $(shell pkg-config --cflags $(1) 2>/dev/null)
pc_libs = $(shell pkg-config --libs $(1) 2>/dev/null || echo $(2))
PKG_CFLAGS := $(call pc_cflags,yaml-0.1) $(call pc_cflags,jansson)
PKG_LIBS := $(call pc_libs,yaml-0.1,-lyaml) $(call pc_libs,jansson,-ljansson)
SLURM_CFLAGS ?= $(call pc_cflags,slurm)
# what the recipe library needs at link time: libyaml, jansson, libm (ceil and
# trunc are calls, not builtins, at -O0)
LIB_LIBS := $(PKG_LIBS) -lm
CHECK_CFLAGS := $(call pc_cflags,check)
CHECK_LIBS := $(call pc_libs,check,-lcheck -lsubunit -lm -lrt -lpthread)

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
	-Wstrict-prototypes -Wmissing-prototypes -Wvla
# gcc before 11 (RHEL 8's 8, Debian 11's 10) takes a designated initializer
# whose value is a compound literal for one that leaves the fields after it
# out (-Wmissing-field-initializers, an error with -Werror): off there only
GCC_BEFORE_11 := $(shell $(CC) -E -dM -x c /dev/null 2>/dev/null | \
	awk '$$2 == "__GNUC__" && $$3 < 11 { g = 1 } $$2 == "__clang__" { c = 1 } END { if (g && !c) print 1 }')
WARN += $(if $(GCC_BEFORE_11),-Wno-missing-field-initializers)
OPT ?= -O2 -g
CFLAGS ?=
# _FORTIFY_SOURCE unless the build's flags set it (RHEL's and Fedora's
# optflags do, to 2 or 3: a second definition would be an error)
HARDEN := -fstack-protector-strong -fPIC \
	$(if $(findstring _FORTIFY_SOURCE,$(CFLAGS) $(OPT)),,-D_FORTIFY_SOURCE=2)
CFLAGS += -std=gnu11 $(OPT) $(WARN) $(HARDEN) -D_GNU_SOURCE \
	-DMCR_VERSION='"$(VERSION)"' -Ilib -Iruntime $(PKG_CFLAGS) $(SLURM_CFLAGS) -MMD -MP
LDHARDEN := -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack -Wl,--as-needed
LDFLAGS ?=
LDFLAGS += $(LDHARDEN)

LIB_SRC := $(wildcard lib/*.c lib/*/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
# the runtime (runtime/README.md): what runs with a job, private, linked
# into the plugin and mooncake-recipe
RT_SRC := $(wildcard runtime/*/*.c)
RT_OBJ := $(RT_SRC:%.c=$(B)/%.o)
RT_A := $(B)/libmooncake_runtime.a
SPANK_SRC := $(wildcard spank/*.c spank/*/*.c)
SPANK_OBJ := $(SPANK_SRC:%.c=$(B)/%.o)
# the plugin's folders (spank/README.md) include each other as "folder/x.h"
$(SPANK_OBJ): CFLAGS += -Ispank

# the recipe library (lib/, its interface lib/mooncake_recipe.h): a static
# archive that the plugin, the tool and the tests link; not installed
LIB_A := $(B)/libmooncake_recipe.a
CLI := $(B)/mooncake-recipe
PLUGIN := $(B)/spank_mooncake.so

.PHONY: all check check-unit check-plugin check-artifact check-corpus check-contract \
	check-cluster check-package check-matrix check-o0 sanitize coverage demo bench install clean
all: $(LIB_A) $(RT_A) $(CLI) $(PLUGIN)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(RT_A): $(RT_OBJ)
	rm -f $@ && ar rcs $@ $^

CLI_SRC := $(wildcard tools/*.c)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
$(CLI_OBJ): CFLAGS += -Itools
# status asks slurmctld for a job's record through libslurm, as the plugin
# does (tools/slurm_job.c, with the plugin's spank/plugin/slurm_compat.h)
$(B)/tools/slurm_job.o: CFLAGS += -Ispank
SLURM_LIBS := -lslurm
$(CLI): $(CLI_OBJ) $(RT_A) $(LIB_A)
	$(CC) $(LDFLAGS) -pie -o $@ $^ $(LIB_LIBS) $(SLURM_LIBS)

# The plugin carries the library inside and exports only plugin_* and
# slurm_spank_* (spank/spank_mooncake.lds); Slurm's own symbols (spank_*,
# slurm_*) resolve against libslurmfull in the process that loads it.
# the pool's sampler (spank/steps/step.c, mcp_start_sampler) is this build's mooncake-recipe,
# $(BINDIR)/mooncake-recipe (sampler='s default, runtime/plugstack):
# plugstack.o is rebuilt when BINDIR changes
$(B)/runtime/plugstack/plugstack.o: CFLAGS += -DMCRI_DEFAULT_SAMPLER='"$(BINDIR)/mooncake-recipe"'
$(B)/runtime/plugstack/plugstack.o: $(B)/bindir.stamp
.PHONY: FORCE
$(B)/bindir.stamp: FORCE
	@mkdir -p $(B) && echo '$(BINDIR)' >$@.tmp && \
		{ cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@; }

$(PLUGIN): $(SPANK_OBJ) $(RT_A) $(LIB_A) spank/spank_mooncake.lds
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=spank/spank_mooncake.lds \
		-o $@ $(SPANK_OBJ) $(RT_A) $(LIB_A) $(LIB_LIBS)

-include $(LIB_OBJ:.o=.d) $(RT_OBJ:.o=.d) $(SPANK_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

include tests/tests.mk

# ---- install, uninstall, Debian packages, RPMs ----------------------------
# `make install` writes the plugin, the tool, the man pages and the
# plugstack snippet (INSTALLED_FILES), and `make uninstall` removes exactly
# those; neither depends on the list of sources. The recipe library is
# inside both binaries: no library, header or pkg-config file is installed
# (doc/libmooncake_recipe.md). Uninstall also removes the directories that
# are left empty, within DESTDIR (without DESTDIR only share/spank-mooncake,
# which is ours alone).
INSTALL_DIRS = $(BINDIR) $(SLURM_PLUGINDIR) $(MANDIR)/man1 $(MANDIR)/man8 \
	$(DATADIR)/spank-mooncake
INSTALLED_FILES = $(BINDIR)/mooncake-recipe $(SLURM_PLUGINDIR)/spank_mooncake.so \
	$(MANDIR)/man1/mooncake-recipe.1 $(MANDIR)/man8/spank_mooncake.8 \
	$(DATADIR)/spank-mooncake/mooncake.conf

.PHONY: uninstall deb dist rpm slurm-plugindir
install: all
	install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS))
	install -m 0755 $(CLI) $(DESTDIR)$(BINDIR)/mooncake-recipe
	install -m 0755 $(PLUGIN) $(DESTDIR)$(SLURM_PLUGINDIR)/spank_mooncake.so
	install -m 0644 doc/mooncake-recipe.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 doc/spank_mooncake.8 $(DESTDIR)$(MANDIR)/man8/
	sed 's|^required spank_mooncake\.so|required $(SLURM_PLUGINDIR)/spank_mooncake.so|' \
		etc/plugstack.conf.d/mooncake.conf >$(DESTDIR)$(DATADIR)/spank-mooncake/mooncake.conf

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED_FILES))
	@rmdir $(DESTDIR)$(DATADIR)/spank-mooncake 2>/dev/null || true
	@if [ -n "$(DESTDIR)" ]; then cd "$(DESTDIR)" && \
		for d in $(patsubst /%,%,$(INSTALL_DIRS)); do \
			[ ! -d "$$d" ] || rmdir -p --ignore-fail-on-non-empty "$$d" || exit 1; \
		done; fi

# Binary Debian packages of the committed HEAD, built in a clean clone under
# ${TMPDIR:-/tmp} and checked by lintian; the .debs land in $(B)/deb.
deb:
	tests/package/build.sh $(abspath $(B))/deb

# Where the installed Slurm loads its plugins (its PluginDir's default): the
# directory of its libslurmfull.so, under the libdir of slurm.pc (Slurm 24.05
# on) or where the distributions put it (SchedMD's RPMs /usr/lib64/slurm,
# Debian /usr/lib/<triplet>/slurm-wlm). The spec installs the plugin there;
# make install uses SLURM_PLUGINDIR (default $(LIBDIR)/slurm).
SLURM_LIBDIR ?= $(patsubst %/libslurmfull.so,%,$(firstword $(wildcard $(addsuffix /libslurmfull.so, \
	$(addsuffix /slurm,$(shell pkg-config --variable=libdir slurm 2>/dev/null)) \
	/usr/lib64/slurm /usr/lib/*/slurm-wlm /usr/lib/slurm))))
slurm-plugindir:
	@[ -n "$(SLURM_LIBDIR)" ] || { echo "make slurm-plugindir: no libslurmfull.so under slurm.pc's libdir/slurm, /usr/lib64/slurm, /usr/lib/*/slurm-wlm or /usr/lib/slurm: install Slurm (its plugins), or name the directory with SLURM_LIBDIR=" >&2; exit 1; }
	@echo $(SLURM_LIBDIR)

# The release tarball of the committed HEAD (git archive), with the spec at
# its top: rpmbuild -ta $(B)/spank-mooncake-$(VERSION).tar.gz builds the RPMs.
DIST := spank-mooncake-$(VERSION)
dist:
	@v=$$(sed -n 's/^Version:[[:space:]]*//p' spank-mooncake.spec); [ "$$v" = "$(VERSION)" ] || \
		{ echo "make dist: spank-mooncake.spec is at $$v, the Makefile at $(VERSION): update the spec (Version, %changelog)" >&2; exit 1; }
	@[ -z "$$(git status --porcelain --untracked-files=no)" ] || \
		echo "note: uncommitted changes are not in $(DIST).tar.gz (made of HEAD, $$(git log -1 --format=%h))"
	@mkdir -p $(B)
	git archive --format=tar.gz --prefix=$(DIST)/ -o $(B)/$(DIST).tar.gz HEAD

# RPMs of that tarball (rpmbuild -ta; with --nodeps where rpm is not the
# system's package manager, as on Debian), checked by rpmlint; in $(B)/rpm.
rpm: dist
	@command -v rpmbuild >/dev/null && command -v rpmlint >/dev/null && command -v rpm2cpio >/dev/null || \
		tests/setup.sh rpm
	tests/package/rpm.sh $(abspath $(B))/$(DIST).tar.gz $(abspath $(B))/rpm

clean:
	rm -rf $(B) build-san build-cov build-fuzz build-o0
