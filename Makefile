# hogwild — lock-free parallel SGD trainer.
#
# Flags (yes/no style, as in Redis and lz4):
#   HWLOC=1   pin threads and place memory with hwloc (0: portable stub, no pinning)
#   CUDA=auto build the CUDA backend (src/backend/cuda.cu) when nvcc is found in
#             $(CUDA_HOME)/bin or on PATH; 1: required; 0: never. It is a plugin,
#             libhogwild-cuda.so, that hogwild loads only for --device cuda (and
#             topo's GPU line): hogwild itself links no CUDA library
#   CUDA_HOME=/usr/local/cuda  CUDA_ARCH=the -gencode list (Ampere, Hopper + PTX)
#   MPI=auto  also build hogwild-mpi, the program mpirun starts to train across
#             machines: 1 on, 0 off, auto when Open MPI is found (pkg-config ompi-c,
#             or mpicc). hogwild itself links no MPI library
#   DEBUG=0   1: -O0 -g3, assertions on
#   V=0       1: echo every command
#   PREFIX=/usr/local  DESTDIR=  mandir=$(PREFIX)/share/man
# Targets: all test demo bench man install uninstall install-test clean asan tsan setup

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
PLUGINDIR ?= $(LIBDIR)/hogwild
PCDIR   ?= $(LIBDIR)/pkgconfig
mandir  ?= $(PREFIX)/share/man
HWLOC   ?= 1
CUDA    ?= auto
CUDA_HOME ?= /usr/local/cuda
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]
MPI     ?= auto
DEBUG   ?= 0
V       ?= 0
SAN     ?=
BUILD   ?= build

CC      ?= cc
PKG_CONFIG ?= pkg-config
comma := ,

ifeq ($(V),1)
Q :=
else
Q := @
endif

# --- dependencies through pkg-config; a missing one names its Debian package ---
# name:debian-package
DEPS_REQ := lmdb:liblmdb-dev zlib:zlib1g-dev openblas:libopenblas-dev liblzma:liblzma-dev libzstd:libzstd-dev
ifeq ($(HWLOC),1)
DEPS_REQ += hwloc:libhwloc-dev
endif
DEPS_TEST := cunit:libcunit1-dev

# MPI: pkg-config's ompi-c first, else what the mpicc wrapper would add
# (--showme is Open MPI's, -show MPICH's).
MPI_PC := $(shell $(PKG_CONFIG) --exists ompi-c 2>/dev/null && echo y)
MPICC  := $(shell command -v mpicc 2>/dev/null)
ifeq ($(MPI),auto)
MPI_ON := $(if $(MPI_PC)$(MPICC),1,0)
else
MPI_ON := $(MPI)
endif
ifeq ($(MPI_ON),1)
ifneq ($(MPI_PC),)
MPI_CFLAGS := $(shell $(PKG_CONFIG) --cflags ompi-c)
MPI_LIBS   := $(shell $(PKG_CONFIG) --libs ompi-c)
else ifneq ($(MPICC),)
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null || $(MPICC) -show 2>/dev/null | sed 's/^[^ ]* //')
MPI_LIBS   := $(shell $(MPICC) --showme:link 2>/dev/null)
else
MPI_MISSING := libopenmpi-dev
endif
endif

pc_missing = $(foreach d,$(1),$(if $(shell $(PKG_CONFIG) --exists $(word 1,$(subst :, ,$(d))) && echo y),,$(word 2,$(subst :, ,$(d)))))
# libbz2 has no pkg-config file in Debian: its header says whether it is there
BZ2_MISSING  := $(if $(shell printf '\043include <bzlib.h>\n' | $(CC) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && echo y),,libbz2-dev)
MISSING      := $(strip $(call pc_missing,$(DEPS_REQ)) $(BZ2_MISSING))
MISSING_TEST := $(strip $(call pc_missing,$(DEPS_TEST)))
PC_NAMES     := $(foreach d,$(DEPS_REQ),$(word 1,$(subst :, ,$(d))))

# --- CUDA: found, required or off; CUDA_BUILT says what this build has ---
NVCC_FOUND := $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
ifeq ($(CUDA),0)
CUDA_BUILT := 0
else ifeq ($(CUDA),1)
CUDA_BUILT := 1
ifeq ($(NVCC_FOUND),)
$(error CUDA=1 but nvcc is neither in $(CUDA_HOME)/bin nor on PATH (install the CUDA toolkit or set CUDA_HOME))
endif
else
CUDA_BUILT := $(if $(NVCC_FOUND),1,0)
endif
NVCC ?= $(NVCC_FOUND)
ifeq ($(CUDA_BUILT),1)
# the toolkit nvcc belongs to (an nvcc on PATH may be a link or a wrapper script):
# nvcc itself says where its TOP is
CUDA_ROOT := $(realpath $(shell $(NVCC) --dryrun -c -x cu /dev/null 2>&1 | sed -n 's/^\#\$$ TOP=//p' | head -1))
CUDA_ROOT := $(or $(CUDA_ROOT),$(CUDA_HOME))
CUDA_LIBDIR := $(CUDA_ROOT)/lib64
CUDA_LIBS := -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcublas -lcudart
CUDA_VERSION := $(shell $(NVCC) --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
endif

# -falign-loops=32: a hot loop's speed no longer hangs on where unrelated code
# pushed it (measured on an AMD EPYC VM: serial on the RCV1-shaped set 4% slower,
# reproducibly over 8 interleaved rounds, after a change that only moved the
# round function by 16 bytes; with the flag, level with before; no change on
# three other runs)
OPT_CFLAGS := -O2 -march=x86-64-v2 -fno-math-errno -falign-loops=32
ifeq ($(DEBUG),1)
OPT_CFLAGS := -O0 -g3
endif
ifeq ($(SAN),address)
OPT_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SANLD := -fsanitize=address,undefined
endif
ifeq ($(SAN),thread)
OPT_CFLAGS := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
SANLD := -fsanitize=thread
endif

# Every object is position independent (-fPIC, without interposition so calls
# inside the library stay direct), so the same objects make libhogwild.a and
# libhogwild.so.
CPPFLAGS_ALL := -Iinclude -Isrc -D_GNU_SOURCE -DHOG_HWLOC=$(HWLOC) \
                -DHOG_MPI_PROGRAM=$(MPI_ON) $(CPPFLAGS)
# clang reports an `omp simd` loop it did not vectorize (at -O1, or with the
# sanitizers' instrumentation) as a warning, which -Werror makes fatal; the
# pragma asks for speed, not for correctness, so such a build goes on
CLANG_FLAGS  := $(if $(shell $(CC) --version 2>/dev/null | grep -i clang),-Wno-pass-failed)
CFLAGS_ALL   := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -fopenmp \
                -pthread -fPIC -fno-semantic-interposition $(OPT_CFLAGS) $(CLANG_FLAGS) \
                $(shell $(PKG_CONFIG) --cflags $(PC_NAMES) 2>/dev/null) $(CFLAGS)
LDLIBS_ALL   := $(shell $(PKG_CONFIG) --libs $(PC_NAMES) 2>/dev/null) -lbz2 -ldl -lm $(LDLIBS)
LDFLAGS_ALL  := -fopenmp -pthread $(SANLD) $(LDFLAGS)

# Sources: every .c under src/ except the CLI goes into the library; hwloc is one
# optional file. The library has no MPI (mpi_stub.c: one rank); hogwild-mpi links
# mpi.c ahead of it, which defines every symbol of the stub, so the stub's member
# of the archive is never pulled in.
LIB_SRC := $(filter-out src/cli/% src/sys/mpi.c,$(wildcard src/*.c src/*/*.c))
ifeq ($(HWLOC),1)
LIB_SRC := $(filter-out src/sys/topo_stub.c,$(LIB_SRC))
else
LIB_SRC := $(filter-out src/sys/topo_hwloc.c,$(LIB_SRC))
endif
CLI_SRC  := $(wildcard src/cli/*.c)
TEST_SRC := $(wildcard tests/test_*.c)

OBJDIR  := $(BUILD)/obj$(if $(SAN),-$(SAN))
LIB_OBJ := $(LIB_SRC:%.c=$(OBJDIR)/%.o)
MPI_OBJ := $(OBJDIR)/src/sys/mpi.o
CLI_OBJ := $(CLI_SRC:%.c=$(OBJDIR)/%.o)
TEST_OBJ:= $(TEST_SRC:%.c=$(OBJDIR)/%.o) $(OBJDIR)/tests/main.o
LIBA    := $(OBJDIR)/libhogwild.a
LIBSO   := $(OBJDIR)/libhogwild.so
BIN     := hogwild$(if $(SAN),-$(SAN))
MPIBIN  := hogwild-mpi$(if $(SAN),-$(SAN))
TESTBIN := $(OBJDIR)/tests/run_tests
# The CUDA plugin, beside the programs (where they look for it first); one build
# serves the sanitizer builds too (its object does not depend on SAN).
PLUGIN  := libhogwild-cuda.so
SOVER   := 0

.PHONY: all test check demo bench man install uninstall install-test clean asan tsan setup \
        deps-check test-unit test-cli fuzz fuzz-build corrupt

all: deps-check $(BIN) $(if $(filter 1,$(MPI_ON)),$(MPIBIN)) $(if $(filter 1,$(CUDA_BUILT)),$(PLUGIN)) \
     $(if $(SAN),,$(LIBSO))

deps-check:
ifneq ($(MISSING)$(MPI_MISSING),)
	@echo "hogwild: missing libraries; install the Debian packages: $(MISSING) $(MPI_MISSING)$(if $(MPI_MISSING), (or build with MPI=0))" >&2
	@echo "         (or run: scripts/setup.sh)" >&2
	@exit 1
else
	@echo "hogwild: building with$(foreach n,$(PC_NAMES), $(n) $(shell $(PKG_CONFIG) --modversion $(n)))$(if $(filter 1,$(HWLOC)),, (no hwloc: threads not pinned))$(if $(filter 1,$(CUDA_BUILT)), cuda $(CUDA_VERSION) ($(NVCC)), (no CUDA: --device cpu only))$(if $(filter 1,$(MPI_ON)),$(comma) MPI $(or $(shell $(PKG_CONFIG) --modversion ompi-c 2>/dev/null),(mpicc)),$(comma) no MPI (one machine only))$(if $(SAN), [$(SAN) sanitizer])"
endif

# Objects depend on the flags: a changed flag line rebuilds everything.
FLAGSFILE := $(OBJDIR)/.flags
$(FLAGSFILE): FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL)' | cmp -s - $@ || echo '$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL)' > $@
FORCE:

$(OBJDIR)/%.o: %.c $(FLAGSFILE)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC    $<")
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

# The CUDA backend: a plugin (src/backend/cuda.cu, nvcc) that links cuBLAS and the
# CUDA runtime; backend.c loads it with dlopen when a GPU is asked for. Only its
# entry point is exported.
CUDA_OBJ := $(BUILD)/cuda/cuda.o
$(CUDA_OBJ): src/backend/cuda.cu src/backend/cuda.h src/backend/backend.h $(wildcard include/*.h)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  NVCC  $<")
	$(Q)$(NVCC) -std=c++17 -O2 $(CUDA_ARCH) -Iinclude -Isrc -D_GNU_SOURCE \
	  -Xcompiler -fPIC,-fvisibility=hidden,-Wall,-Wextra,-Werror -c $< -o $@

$(PLUGIN): $(CUDA_OBJ)
	$(if $(Q),@echo "  LD    $@")
	$(Q)$(CXX) -shared -o $@ $< -Wl,-z,defs $(CUDA_LIBS)

$(LIBA): $(LIB_OBJ)
	$(if $(Q),@echo "  AR    $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBSO): $(LIB_OBJ)
	$(if $(Q),@echo "  LD    $@")
	$(Q)$(CC) -shared -Wl,-soname,libhogwild.so.$(SOVER) -Wl,-z,defs $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(BIN): $(CLI_OBJ) $(LIBA)
	$(if $(Q),@echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(LIBA) $(LDLIBS_ALL)

# The program mpirun starts: the same objects with the real MPI ahead of the library.
$(MPI_OBJ): CFLAGS_ALL += $(MPI_CFLAGS)
$(MPIBIN): $(CLI_OBJ) $(MPI_OBJ) $(LIBA)
	$(if $(Q),@echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(MPI_OBJ) $(LIBA) $(LDLIBS_ALL) $(MPI_LIBS)

# The test runner: each tests/test_NAME.c defines `int test_NAME_register(void)`;
# the list is generated from the file names, so adding a suite needs no edit here.
$(OBJDIR)/tests/suites.h: $(TEST_SRC)
	@mkdir -p $(@D)
	@{ for f in $(notdir $(basename $(TEST_SRC))); do echo "X($$f)"; done; } > $@.tmp && mv $@.tmp $@

$(OBJDIR)/tests/main.o: tests/main.c $(OBJDIR)/tests/suites.h $(FLAGSFILE)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS_ALL) -I$(OBJDIR)/tests $(CFLAGS_ALL) $(shell $(PKG_CONFIG) --cflags cunit 2>/dev/null) -c $< -o $@

# (with the CLI's option table, which depends on the library alone: its tests
# check the table the parser reads)
TEST_CLI_OBJ := $(OBJDIR)/src/cli/opts.o $(OBJDIR)/src/cli/tune_fold.o $(OBJDIR)/src/cli/compare_out.o \
                $(OBJDIR)/src/cli/format.o
# The tests link the real MPI where it is built (its not-started path is tested;
# the runs on several ranks are in tests/cli.sh under mpirun).
TEST_MPI := $(if $(filter 1,$(MPI_ON)),$(MPI_OBJ))
$(TESTBIN): $(TEST_OBJ) $(TEST_CLI_OBJ) $(TEST_MPI) $(LIBA)
	$(if $(Q),@echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(TEST_OBJ) $(TEST_CLI_OBJ) $(TEST_MPI) $(LIBA) $(LDLIBS_ALL) \
	  $(if $(TEST_MPI),$(MPI_LIBS)) $(shell $(PKG_CONFIG) --libs cunit 2>/dev/null)

# One command on a fresh Debian machine: installs what is missing, then builds and tests.
test check:
	@scripts/setup.sh --if-missing
	@$(MAKE) --no-print-directory test-unit test-cli install-test

TEST_ENV := HOG_BIN=$(CURDIR)/$(BIN) $(if $(filter 1,$(MPI_ON)),HOG_MPI_BIN=$(CURDIR)/$(MPIBIN))

# (the test runner is not beside the plugin: it is told where the plugin is)
test-unit: all $(TESTBIN)
	$(Q)$(TEST_ENV) HOG_CUDA_PLUGIN=$(CURDIR)/$(PLUGIN) $(TESTBIN)

test-cli: all
	$(Q)$(TEST_ENV) sh tests/cli.sh

demo:
	@scripts/setup.sh --if-missing
	@$(MAKE) --no-print-directory all
	./$(BIN) demo

bench: all $(BUILD)/bench_load $(BUILD)/bench_gemm $(BUILD)/bench_allreduce
	sh bench/run_all.sh

$(BUILD)/bench_gemm: bench/bench_gemm.c $(LIBA)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(LIBA) $(LDFLAGS_ALL) $(LDLIBS_ALL)

# cuBLAS alone, the ceiling bench_gemm --device cuda is compared with (bench/gpu.sh)
$(BUILD)/bench_cublas: bench/bench_cublas.cu
	$(if $(filter 1,$(CUDA_BUILT)),,$(error bench_cublas needs nvcc (CUDA_HOME=$(CUDA_HOME))))
	$(Q)$(NVCC) -std=c++17 -O2 $(CUDA_ARCH) -o $@ $< -L$(CUDA_LIBDIR) -Xlinker -rpath,$(CUDA_LIBDIR) -lcublas

$(BUILD)/bench_load: bench/bench_load.c $(LIBA)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(LIBA) $(LDFLAGS_ALL) $(LDLIBS_ALL)

$(BUILD)/bench_allreduce: bench/bench_allreduce.c $(MPI_OBJ) $(LIBA)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(MPI_OBJ) $(LIBA) $(LDFLAGS_ALL) $(LDLIBS_ALL) $(MPI_LIBS)

asan:
	@scripts/setup.sh --if-missing
	@$(MAKE) --no-print-directory SAN=address test-unit test-cli

# (test_damage is left out: 3.5 of tsan's 7 minutes, spent reopening damaged files
# one at a time; its only threads are the loader's, which the other suites run
# under tsan too, and asan runs it whole)
tsan:
	@scripts/setup.sh --if-missing
	@TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp $$TSAN_OPTIONS" HOG_TEST_SKIP="test_damage" \
	  $(MAKE) --no-print-directory SAN=thread test-unit

setup:
	scripts/setup.sh

man:
	@for f in man/*.[15]; do man -l -Tutf8 $$f >/dev/null 2>&1 || { echo "man: $$f does not render"; exit 1; }; done; echo "man pages render"

# pkg-config: a static link needs the libraries the objects use (Libs.private),
# shared themselves (the header includes none of theirs). Paths under PREFIX
# are written as ${prefix}/..., so that pkg-config --define-prefix relocates them.
hogwild.pc: FORCE
	$(Q){ echo 'prefix=$(PREFIX)'; echo 'libdir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))'; \
	  echo 'includedir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCDIR))'; echo; \
	  echo 'Name: hogwild'; echo 'Description: lock-free parallel SGD (Hogwild!) on LMDB data sets'; \
	  echo 'Version: '$$(sed -n 's/^#define HOG_VERSION_STRING "\(.*\)"/\1/p' include/hogwild.h); \
	  echo 'Cflags: -I$${includedir}'; echo 'Libs: -L$${libdir} -lhogwild'; \
	  echo 'Libs.private: $(strip $(shell $(PKG_CONFIG) --libs $(PC_NAMES) 2>/dev/null)) -lbz2 -fopenmp -pthread -ldl -lm'; \
	  } > $@.tmp && mv $@.tmp $@

# PREFIX, DESTDIR: the programs, the static and shared library, the header, the
# pkg-config file, the CUDA plugin (when built) and the man pages. Nothing built
# depends on PREFIX (the plugin is found relative to the program or library), so
# installing rebuilds nothing. PLUGINDIR must stay LIBDIR/hogwild for that.
install: all hogwild.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(PCDIR) \
	           $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man5
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/hogwild
	$(if $(filter 1,$(MPI_ON)),install -m 755 $(MPIBIN) $(DESTDIR)$(BINDIR)/hogwild-mpi)
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/libhogwild.a
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/libhogwild.so.$(SOVER)
	ln -sf libhogwild.so.$(SOVER) $(DESTDIR)$(LIBDIR)/libhogwild.so
	install -m 644 include/hogwild.h include/hogwild_data.h include/hogwild_backend.h $(DESTDIR)$(INCDIR)/
	install -m 644 hogwild.pc $(DESTDIR)$(PCDIR)/hogwild.pc
	$(if $(filter 1,$(CUDA_BUILT)),install -d $(DESTDIR)$(PLUGINDIR) && install -m 755 $(PLUGIN) $(DESTDIR)$(PLUGINDIR)/$(PLUGIN))
	install -m 644 man/*.1 $(DESTDIR)$(mandir)/man1/
	install -m 644 man/*.5 $(DESTDIR)$(mandir)/man5/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hogwild $(DESTDIR)$(BINDIR)/hogwild-mpi $(DESTDIR)$(LIBDIR)/libhogwild.a \
	      $(DESTDIR)$(LIBDIR)/libhogwild.so $(DESTDIR)$(LIBDIR)/libhogwild.so.$(SOVER) \
	      $(DESTDIR)$(INCDIR)/hogwild.h $(DESTDIR)$(INCDIR)/hogwild_data.h $(DESTDIR)$(INCDIR)/hogwild_backend.h \
	      $(DESTDIR)$(PCDIR)/hogwild.pc $(DESTDIR)$(PLUGINDIR)/$(PLUGIN)
	-rmdir $(DESTDIR)$(PLUGINDIR) 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(mandir)/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(addprefix $(DESTDIR)$(mandir)/man5/,$(notdir $(wildcard man/*.5)))

# Installs into a temporary PREFIX and builds a small C program against the
# installed library through pkg-config, static and shared (tests/install.sh).
install-test: all
	$(Q)sh tests/install.sh

clean:
	rm -rf $(BUILD) hogwild hogwild-address hogwild-thread hogwild-mpi hogwild-mpi-address \
	       hogwild-mpi-thread $(PLUGIN) hogwild.pc

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)

# --- damage and fuzzing (issue 9) ---
# corrupt: damaged data sets through every command (tests/corrupt.sh; SHORT=1: the CI form).
# fuzz: builds the libFuzzer harnesses tests/fuzz/fuzz_NAME.c with clang (address and
# undefined sanitizers) into $(BUILD)/fuzz/ and runs each for FUZZ_SECONDS on a copy of
# its seeds tests/fuzz/corpus/NAME/; crashes are written to $(BUILD)/fuzz/crashes/.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIB     := $(BUILD)/fuzz/obj-fuzz/libhogwild.a
ifeq ($(SAN),fuzz)
CFLAGS_ALL   += -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=undefined
LDFLAGS_ALL  += -fsanitize=address,undefined
endif

corrupt: all
	$(Q)HOG_BIN=$(CURDIR)/$(BIN) sh tests/corrupt.sh $(if $(filter 1,$(SHORT)),--short)

fuzz-build:
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) SAN=fuzz BUILD=$(BUILD)/fuzz $(FUZZ_LIB)
	@for n in $(FUZZ_NAMES); do \
	  $(FUZZ_CC) $(CPPFLAGS_ALL) -Wall -Wextra -Werror -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -o $(BUILD)/fuzz/fuzz_$$n tests/fuzz/fuzz_$$n.c $(FUZZ_LIB) -fopenmp -pthread $(LDLIBS_ALL) || exit 1; \
	done

fuzz: fuzz-build
	@mkdir -p $(BUILD)/fuzz/crashes
	@for n in $(FUZZ_NAMES); do \
	  rm -rf $(BUILD)/fuzz/corpus-$$n && mkdir -p $(BUILD)/fuzz/corpus-$$n && \
	  cp tests/fuzz/corpus/$$n/* $(BUILD)/fuzz/corpus-$$n/ 2>/dev/null; \
	  echo "fuzz $$n: $(FUZZ_SECONDS) s"; \
	  $(BUILD)/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -max_len=$$(cat tests/fuzz/corpus/$$n.max_len 2>/dev/null || echo 4096) \
	    -artifact_prefix=$(BUILD)/fuzz/crashes/$$n- -print_final_stats=1 $(BUILD)/fuzz/corpus-$$n 2>$(BUILD)/fuzz/$$n.log; \
	  rc=$$?; grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+[[:space:]]+DONE)' $(BUILD)/fuzz/$$n.log | tr '\n' ' '; echo; \
	  [ $$rc = 0 ] || { tail -40 $(BUILD)/fuzz/$$n.log; exit 1; }; \
	done
