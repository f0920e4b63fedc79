# SPDX-License-Identifier: MIT
# dynid: identify the dynamic parameters of a robot arm from logged data.
# Layers: core (dynamics) <- ident (model from data) <- verify (model against
# data) <- reports (report and the dynid program). Each layer is compiled
# with only its own and lower include paths (build/inc/LAYER holds links to
# them), and includes are written with their folder ("core/model.h"), so an
# upward include does not compile. libdynid is core + ident + verify; the
# program links the reports objects (build/libdynid_cli.a) on top.
#
#   make            libdynid.a, libdynid.so and ./dynid     make test   the test suite
#   make demo       the main job on shipped data   make bench  timings (BENCH_ARGS="--only kernels")
#   make asan       tests under ASan+UBSan      make fuzz   libFuzzer runs (tests/fuzz/run.sh)
#   make install    PREFIX=/usr/local DESTDIR=  make clean
#   make deps       install missing Debian packages (as root) or print how;
#                   make test and make demo run it first, make (all) does not

CC      ?= cc
CXX     ?= c++
PREFIX  ?= /usr/local
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
CFLAGS  += -fPIC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wpedantic -I/usr/include/libxml2
DEPFLAGS = -MMD -MP
LDLIBS  = -ldsdp -llapacke -lopenblas -lcsv -lz -lm -pthread
# libxml2 (URDF) and PLplot (the report's plots) are loaded when a command
# first needs them (core/util.h dy_dlsyms), not linked: every other command
# starts ~7 ms sooner. The tests' KDL reader links libxml2 itself.
TEST_LIBS = -lxml2
NLOPT_LIBS = -lnlopt
# The program links OpenBLAS (with its LAPACK), LAPACKE and DSDP from their
# static archives when the system has all three (Debian's -dev packages
# ship them), and the Fortran runtime they call from its archive when the
# compiler has one (else its shared libgfortran.so.5): the dynamic loader
# then maps 9 libraries fewer and binds ~7,000 symbols fewer, and every
# command starts with ~3 ms of CPU time beyond a bare program's instead of
# ~9 (make bench, section validate). The library links them shared, as the
# program does where an archive is missing.
have_ar = $(filter /%,$(shell $(CC) -print-file-name=lib$(1).a))
AR_ON := -Wl,-Bstatic
AR_OFF := -Wl,-Bdynamic
FORTRAN_RT = $(if $(and $(call have_ar,gfortran),$(call have_ar,quadmath)),$(AR_ON) -lgfortran -lquadmath $(AR_OFF),-l:libgfortran.so.5)
PROG_LIBS = $(NLOPT_LIBS) $(if $(and $(call have_ar,dsdp),$(call have_ar,lapacke),$(call have_ar,openblas)),\
  $(AR_ON) -ldsdp -llapacke -lopenblas $(AR_OFF) $(FORTRAN_RT) -lcsv -lz -lm -pthread,$(LDLIBS))

# Debian packages the build needs, with a header or file that proves each
DEPS = liblapacke-dev:/usr/include/lapacke.h \
       libopenblas-dev:/usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h \
       libcsv-dev:/usr/include/csv.h \
       libxml2-dev:/usr/include/libxml2/libxml/parser.h \
       zlib1g-dev:/usr/include/zlib.h \
       liborocos-kdl-dev:/usr/include/kdl/chain.hpp \
       libplplot-dev:/usr/include/plplot/plplot.h \
       libnlopt-dev:/usr/include/nlopt.h \
       libdsdp-dev:/usr/include/dsdp/dsdp5.h \
       libxml2-utils:/usr/bin/xmllint \
       pkg-config:/usr/bin/pkg-config \
       g++:/usr/bin/g++

# the layers, bottom up, and what each may include
LAYERS := core ident verify reports
INC_core := core
INC_ident := core ident
INC_verify := core ident verify
INC_reports := core ident verify reports

SRC_CORE := $(sort $(wildcard core/*.c))
SRC_IDENT := $(sort $(wildcard ident/*.c))
SRC_VERIFY := $(sort $(wildcard verify/*.c))
SRC_CLI := $(filter-out reports/main.c,$(sort $(wildcard reports/*.c)))
SRC_LIB := $(SRC_CORE) $(SRC_IDENT) $(SRC_VERIFY)
OBJ_LIB := $(SRC_LIB:%.c=build/%.o)
OBJ_CLI := $(SRC_CLI:%.c=build/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=build/tests/%)
TEST_RUN = $(TEST_BIN)
TEST_CXX := $(sort $(wildcard tests/*.cpp))
TEST_CXX_OBJ := $(TEST_CXX:tests/%.cpp=build/tests/%.o)
# the headers a user of the library gets (the rest are internal: mathu.h,
# util.h, numparse.h, kernels.h); installed under include/dynid/LAYER/,
# with the umbrella header verify/dynid.h as include/dynid/dynid.h
HDR_INTERNAL := core/mathu.h core/util.h core/numparse.h verify/kernels.h verify/dynid.h
HDR_PUBLIC := $(filter-out $(HDR_INTERNAL),$(wildcard core/*.h ident/*.h verify/*.h))

# the release number (reports/version.h) gives the shared library's soname
VERSION := $(shell sed -n 's/^\#define DYNID_VERSION "\(.*\)"/\1/p' reports/version.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME  := libdynid.so.$(SOMAJOR)

# the processors: the test programs build (and run, tests/run.sh) in parallel
NPROC := $(shell nproc 2>/dev/null || echo 1)

.PHONY: all deps test check bench asan demo install clean fuzz
all: dynid libdynid.so

deps:
	@missing=""; for d in $(DEPS); do pkg=$${d%%:*}; f=$${d#*:}; \
	  [ -e "$$f" ] || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else echo "deps: missing packages; run: sudo apt-get install$$missing"; exit 1; fi; \
	fi

# build/inc/LAYER/X -> X for every layer X that LAYER may include (kept:
# make would otherwise remove them, and the KDL shims, as intermediates
# after the run, and print so below the test summary)
.PRECIOUS: build/inc/% build/tests/%.o
build/inc/%:
	@mkdir -p $@ && for d in $(INC_$*); do ln -sfn ../../../$$d $@/$$d; done

# the kernels where -O3 pays against the default -O2 (make bench, section
# kernels, and the same section of an OPT=-O3 build): dy_crba 12-20 %
# slower at -O2; the base-parameter Newton-Euler's single call 30-37 %,
# nearly all of it dy_sincos8 (in rnea.c), whose variants -O2 did not
# vectorise; the batch kernels within a few per cent either way. Only over
# the default level: OPT=-O0 or the sanitizer build keep theirs.
KERNEL_OPT ?= $(if $(filter -O2,$(OPT)),-O3)
build/core/rnea.o build/core/crba.o build/verify/ne_base.o: CFLAGS += $(KERNEL_OPT)

define layer_rule
build/$(1)/%.o: $(1)/%.c | build/inc/$(1)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $(DEPFLAGS) -Ibuild/inc/$(1) -c $$< -o $$@
endef
$(foreach L,$(LAYERS),$(eval $(call layer_rule,$(L))))

# the fuzz regression replay compiles the fuzz targets in
build/tests/test_fuzz_regress: $(wildcard tests/fuzz/*.c tests/fuzz/*.h)

# the counting variants (verify/kernels.h): each algorithm file of verify/
# compiled a second time with -DDY_COUNT_OPS into build/verify/NAME_ops.o
VERIFY_OPS := lin91 ne_base renaud saha lin_inertia
OBJ_OPS := $(VERIFY_OPS:%=build/verify/%_ops.o)
OBJ_LIB += $(OBJ_OPS)
build/verify/%_ops.o: verify/%.c | build/inc/verify
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -Ibuild/inc/verify -DDY_COUNT_OPS -c $< -o $@

libdynid.a: $(OBJ_LIB)
	rm -f $@ && ar rcs $@ $^

build/libdynid_cli.a: $(OBJ_CLI)
	rm -f $@ && ar rcs $@ $^

# the shared library: libdynid.so -> libdynid.so.MAJOR (the soname) -> libdynid.so.VERSION
libdynid.so.$(VERSION): $(OBJ_LIB)
	$(CC) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(NLOPT_LIBS) $(LDLIBS)

libdynid.so: libdynid.so.$(VERSION)
	ln -sf $< $(SONAME) && ln -sf $(SONAME) $@

dynid: build/reports/main.o build/libdynid_cli.a libdynid.a
	$(CC) $(CFLAGS) -o $@ $^ $(PROG_LIBS)

build/tests/%.o: tests/%.cpp | build/inc/reports
	@mkdir -p $(dir $@)
	$(CXX) $(OPT) -g -std=c++17 -Wall -Wextra -DEIGEN_MAX_ALIGN_BYTES=16 -DEIGEN_MALLOC_ALREADY_ALIGNED=1 \
	  $(DEPFLAGS) -Ibuild/inc/reports -Itests -I/usr/include/eigen3 -I/usr/include/libxml2 -c $< -o $@

# test programs: every layer's headers and tests/ (C compiled as C by the C++ driver, for KDL)
build/tests/%: tests/%.c build/libdynid_cli.a libdynid.a $(TEST_CXX_OBJ) | build/inc/reports
	@mkdir -p $(dir $@)
	$(CXX) $(filter-out -std=c11 -Wpedantic,$(CFLAGS)) -x c -std=c11 $(DEPFLAGS) -MT $@ -MF $@.d \
	  -Ibuild/inc/reports -Itests -c $< -o $@.o
	$(CXX) -o $@ $@.o $(TEST_CXX_OBJ) build/libdynid_cli.a libdynid.a -lorocos-kdl $(TEST_LIBS) $(NLOPT_LIBS) $(LDLIBS)

# make test and make demo install what is missing first, then build
test: deps
	@$(MAKE) --no-print-directory -j$(NPROC) check

check: dynid libdynid.so $(TEST_RUN)
	@CC="$(CC)" bash tests/run.sh $(TEST_RUN) tests/test_install.sh tests/test_layers.sh tests/test_readme.sh

bench: deps
	@$(MAKE) --no-print-directory dynid build/tests/bench_main && ./build/tests/bench_main $(BENCH_ARGS)

# under the sanitizers: every test but those of pure computation on no
# input, which the plain build runs (the sweeps of closed-form base sets
# over random geometries, whose sets test_base runs under the sanitizers;
# the op-counted algorithms and the batch kernels against their single
# calls; the algorithms through the program; the default cutoff against
# simulated and shipped logs, whose meter every default read exercises;
# the excitation searches and the thread-count comparisons, long searches
# and repeated identifications whose code the other tests run once under
# the sanitizers), to keep CI under 10 minutes
ASAN_SKIP := $(addprefix build/tests/,test_lin test_khalil test_renaud test_batch2 test_algo_cli test_fixdrop \
               test_cutoff test_excite test_excite_repro test_parallel test_motorlog)
asan:
	$(MAKE) clean
	$(MAKE) -j$(NPROC) check TEST_RUN="$(filter-out $(ASAN_SKIP),$(TEST_BIN))" \
	  OPT="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer" \
	  LDFLAGS="-fsanitize=address,undefined" CXX="c++ -fsanitize=address,undefined" CC="cc -fsanitize=address,undefined"
	$(MAKE) clean

demo: deps
	@$(MAKE) --no-print-directory dynid && bash reports/demo.sh

# the program, both libraries (soname links), the headers under include/dynid/,
# dynid.pc for pkg-config and the manual page
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/dynid \
	  $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 dynid $(DESTDIR)$(PREFIX)/bin/dynid
	install -m 644 libdynid.a $(DESTDIR)$(PREFIX)/lib/libdynid.a
	install -m 755 libdynid.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libdynid.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libdynid.so
	for l in core ident verify; do install -d $(DESTDIR)$(PREFIX)/include/dynid/$$l; done
	for h in $(HDR_PUBLIC); do install -m 644 $$h $(DESTDIR)$(PREFIX)/include/dynid/$$h; done
	install -m 644 verify/dynid.h $(DESTDIR)$(PREFIX)/include/dynid/dynid.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' reports/dynid.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/dynid.pc
	install -m 644 reports/dynid.1 $(DESTDIR)$(PREFIX)/share/man/man1/dynid.1
	install -d $(DESTDIR)$(PREFIX)/share/doc/dynid && install -m 644 reports/LICENSE $(DESTDIR)$(PREFIX)/share/doc/dynid/LICENSE

# libFuzzer: every reader, FUZZ_SECONDS each (FUZZ_TARGETS to choose),
# FUZZ_MALLOC_MB the largest allocation; see tests/fuzz/run.sh
fuzz: deps
	@$(MAKE) --no-print-directory $(addprefix build/inc/,$(LAYERS))
	@FUZZ_LIBS="$(NLOPT_LIBS) $(LDLIBS)" VERIFY_OPS="$(VERIFY_OPS)" bash tests/fuzz/run.sh

clean:
	rm -rf build libdynid.a libdynid.so libdynid.so.* dynid

# the dependencies the compiler found (-MMD): a changed header rebuilds
# exactly the objects that include it
-include $(shell find build -name '*.d' 2>/dev/null)
