# dynid: identify the dynamic parameters of a robot arm from logged data.
# Layers: core (dynamics) <- ident (model from data) <- verify (model against
# data) <- reports (report and the dynid program).
#
#   make            libdynid.a, libdynid.so and ./dynid     make test   the test suite
#   make demo       the main job on shipped data   make bench  timings
#   make asan       tests under ASan+UBSan      make fuzz   libFuzzer runs
#   make install    PREFIX=/usr/local DESTDIR=  make clean
#   make deps       install missing Debian packages (as root) or print how

CC      ?= cc
CXX     ?= c++
PREFIX  ?= /usr/local
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
CFLAGS  += -fPIC -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wpedantic -Icore -Iident -Iverify -Ireports \
           -I/usr/include/libxml2
LDLIBS  = -ldsdp -llapacke -lopenblas -lcsv -lxml2 -lz -lm -pthread
PLOT_LIBS = -lplplot
NLOPT_LIBS = -lnlopt

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

SRC_LIB := $(sort $(wildcard core/*.c ident/*.c verify/*.c reports/*.c))
SRC_LIB := $(filter-out reports/main.c,$(SRC_LIB))
OBJ_LIB := $(SRC_LIB:%.c=build/%.o)
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=build/tests/%)
TEST_CXX := $(sort $(wildcard tests/*.cpp))
TEST_CXX_OBJ := $(TEST_CXX:tests/%.cpp=build/tests/%.o)
HDR := $(wildcard core/*.h ident/*.h verify/*.h reports/*.h tests/*.h)

# the release number (reports/version.h) gives the shared library's soname
VERSION := $(shell sed -n 's/^\#define DYNID_VERSION "\(.*\)"/\1/p' reports/version.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
SONAME  := libdynid.so.$(SOMAJOR)

.PHONY: all deps test bench asan demo install clean fuzz
all: deps dynid libdynid.so

deps:
	@missing=""; for d in $(DEPS); do pkg=$${d%%:*}; f=$${d#*:}; \
	  [ -e "$$f" ] || missing="$$missing $$pkg"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else echo "deps: missing packages; run: sudo apt-get install$$missing"; exit 1; fi; \
	fi

build/%.o: %.c $(HDR) | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# the fuzz regression replay compiles the fuzz targets in
build/tests/test_fuzz_regress: $(wildcard tests/fuzz/*.c tests/fuzz/*.h)

# the counting variants (verify/kernels.h): each algorithm file of verify/
# compiled a second time with -DDY_COUNT_OPS into build/verify/NAME_ops.o
VERIFY_OPS := lin91 ne_base renaud saha lin_inertia
OBJ_OPS := $(VERIFY_OPS:%=build/verify/%_ops.o)
OBJ_LIB += $(OBJ_OPS)
build/verify/%_ops.o: verify/%.c $(HDR) | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DDY_COUNT_OPS -c $< -o $@

libdynid.a: $(OBJ_LIB)
	rm -f $@ && ar rcs $@ $^

# the shared library: libdynid.so -> libdynid.so.MAJOR (the soname) -> libdynid.so.VERSION
libdynid.so.$(VERSION): $(OBJ_LIB)
	$(CC) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(PLOT_LIBS) $(NLOPT_LIBS) $(LDLIBS)

libdynid.so: libdynid.so.$(VERSION)
	ln -sf $< $(SONAME) && ln -sf $(SONAME) $@

dynid: build/reports/main.o libdynid.a
	$(CC) $(CFLAGS) -o $@ $^ $(PLOT_LIBS) $(NLOPT_LIBS) $(LDLIBS)

# KDL shims (C++), for tests and bench only; Debian's KDL uses 16-byte Eigen
# alignment; kdl_urdf.cpp reads URDFs with libxml2
build/tests/%.o: tests/%.cpp $(HDR) | deps
	@mkdir -p $(dir $@)
	$(CXX) $(OPT) -g -std=c++17 -Wall -Wextra -DEIGEN_MAX_ALIGN_BYTES=16 -DEIGEN_MALLOC_ALREADY_ALIGNED=1 \
	  -Icore -I/usr/include/eigen3 -I/usr/include/libxml2 -c $< -o $@

build/tests/%: tests/%.c libdynid.a $(TEST_CXX_OBJ) $(HDR)
	@mkdir -p $(dir $@)
	$(CXX) $(filter-out -std=c11 -Wpedantic,$(CFLAGS)) -x c -std=c11 -Itests -c $< -o $@.o
	$(CXX) -o $@ $@.o $(TEST_CXX_OBJ) libdynid.a -lorocos-kdl $(PLOT_LIBS) $(NLOPT_LIBS) $(LDLIBS)

test: deps dynid libdynid.so $(TEST_BIN)
	@CC="$(CC)" bash tests/run.sh $(TEST_BIN) tests/test_install.sh

bench: deps dynid build/tests/bench_main
	@./build/tests/bench_main

build/tests/bench_main: tests/bench_main.c libdynid.a $(TEST_CXX_OBJ) $(HDR)
	@mkdir -p $(dir $@)
	$(CXX) $(filter-out -std=c11 -Wpedantic,$(CFLAGS)) -x c -std=c11 -Itests -c $< -o $@.o
	$(CXX) -o $@ $@.o $(TEST_CXX_OBJ) libdynid.a -lorocos-kdl $(PLOT_LIBS) $(NLOPT_LIBS) $(LDLIBS)

asan:
	$(MAKE) clean
	$(MAKE) test OPT="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer" \
	  LDFLAGS="-fsanitize=address,undefined" CXX="c++ -fsanitize=address,undefined" CC="cc -fsanitize=address,undefined"
	$(MAKE) clean

demo: deps dynid
	@bash reports/demo.sh

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
	install -m 644 core/*.h ident/*.h verify/*.h $(DESTDIR)$(PREFIX)/include/dynid/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' reports/dynid.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/dynid.pc
	install -m 644 reports/dynid.1 $(DESTDIR)$(PREFIX)/share/man/man1/dynid.1

# libFuzzer: every reader, FUZZ_SECONDS each (FUZZ_TARGETS to choose), with
# a 512 MB limit on any one allocation (an input that asks for more is a
# finding, as is a crash, a leak, a hang or a sanitizer report). The corpus
# is seeded from datasets/, tests/bad and tests/fuzz/regress/<target>/; a
# finding is copied into tests/fuzz/regress/<target>/, where
# test_fuzz_regress (make test) replays it through the same code forever.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= table urdf log logs params roundtrip stats
FUZZ_MALLOC_MB ?= 512
FUZZ_CFLAGS = -O1 -g -std=c11 -D_GNU_SOURCE -fsanitize=address,undefined -fno-omit-frame-pointer \
  -Icore -Iident -Iverify -Ireports -Itests/fuzz -I/usr/include/libxml2
fuzz: deps
	@if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev >/dev/null || exit 1; \
	  else echo "fuzz: needs clang and libclang-rt-14-dev: sudo apt-get install clang libclang-rt-14-dev"; exit 1; fi; fi
	@mkdir -p build/fuzz/obj
	@h=$$(ls -t core/*.h ident/*.h verify/*.h reports/*.h | head -n 1); \
	for f in $(SRC_LIB); do o=build/fuzz/obj/$$(echo $$f | tr / _).o; \
	  [ $$o -nt $$f ] && [ $$o -nt $$h ] || clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $$f -o $$o || exit 1; done
	@for k in $(VERIFY_OPS); do f=verify/$$k.c; o=build/fuzz/obj/verify_$${k}_ops.o; \
	  [ $$o -nt $$f ] || clang $(FUZZ_CFLAGS) -DDY_COUNT_OPS -fsanitize=fuzzer-no-link -c $$f -o $$o || exit 1; done
	@for t in $(FUZZ_TARGETS); do \
	  clang $(FUZZ_CFLAGS) -fsanitize=fuzzer tests/fuzz/fuzz_$$t.c build/fuzz/obj/*.o \
	    $(PLOT_LIBS) $(NLOPT_LIBS) $(LDLIBS) -o build/fuzz/fuzz_$$t || exit 1; \
	  mkdir -p build/fuzz/$$t/corpus; \
	  case $$t in table) cp datasets/models/*.csv tests/bad/*.csv build/fuzz/$$t/corpus/ 2>/dev/null;; \
	    urdf) cp datasets/urdf/*.urdf tests/bad/*.urdf build/fuzz/$$t/corpus/ 2>/dev/null;; \
	    log) for g in datasets/*/*.csv.gz; do zcat $$g | head -c 4000 > build/fuzz/$$t/corpus/$$(basename $$g .gz); done 2>/dev/null;; \
	    params) cp tests/fuzz/seeds/*.params build/fuzz/$$t/corpus/ 2>/dev/null;; \
	    stats) cp tests/fuzz/seeds/*.stats build/fuzz/$$t/corpus/ 2>/dev/null;; \
	    logs) cp tests/fuzz/seeds/*.logs build/fuzz/$$t/corpus/ 2>/dev/null;; \
	    roundtrip) for g in datasets/models/*.csv; do { printf '\\000'; cat $$g; } > build/fuzz/$$t/corpus/$$(basename $$g); done; \
	      for g in datasets/urdf/*.urdf; do { printf '\\001'; cat $$g; } > build/fuzz/$$t/corpus/$$(basename $$g); done;; esac; \
	  [ -d tests/fuzz/regress/$$t ] && cp tests/fuzz/regress/$$t/* build/fuzz/$$t/corpus/ 2>/dev/null; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  (cd build/fuzz/$$t && rm -f crash-* leak-* oom-* timeout-* slow-unit-* && \
	    ../fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -malloc_limit_mb=$(FUZZ_MALLOC_MB) -rss_limit_mb=2048 corpus >fuzz.log 2>&1); rc=$$?; \
	  tail -n 3 build/fuzz/$$t/fuzz.log; \
	  if [ $$rc != 0 ]; then mkdir -p tests/fuzz/regress/$$t; \
	    for a in build/fuzz/$$t/crash-* build/fuzz/$$t/leak-* build/fuzz/$$t/oom-* build/fuzz/$$t/timeout-*; do \
	      [ -e "$$a" ] && cp "$$a" tests/fuzz/regress/$$t/fuzz_$$t-$$(basename "$$a") && \
	        echo "fuzz: finding kept as tests/fuzz/regress/$$t/fuzz_$$t-$$(basename "$$a")"; done; \
	    echo "fuzz: $$t found a problem: build/fuzz/$$t/fuzz.log"; exit 1; fi; done

clean:
	rm -rf build libdynid.a libdynid.so libdynid.so.* dynid
