# SPDX-License-Identifier: MIT
# Thin wrapper around CMake.  Targets:
#   make              configure and build into build/
#   make demo         build, then run the examples (examples/run_demo.sh)
#   make check        build, run every test (ctest), check generated bindings
#   make check-asan   build with ASan+UBSan into build-asan/, run unit and 1-2 rank MPI tests
#   make check-tsan   build with ThreadSanitizer into build-tsan/, run the multi-threaded tests (label thr)
#   make install PREFIX=/opt/courier
#   make bindings     regenerate src/binding from the MPI standard (maint/gen_bindings.py),
#                     and the man pages (maint/gen_man.py)
#   make man          regenerate the MPI procedures' man pages (man/man3) only
#   make settings-doc regenerate docs/settings.md from the settings table (courier_info)
#   make clean        remove build/, build-asan/ and build-tsan/
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CTEST_JOBS ?= 2
TEST_TIMEOUT ?= 300
BUILD_TYPE ?= RelWithDebInfo
CMAKE      ?= cmake
CTEST      ?= ctest

.PHONY: all build configure demo check check-asan check-tsan install bindings man settings-doc clean

all: build

configure:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX)

build: configure
	$(CMAKE) --build $(BUILD) -j$(JOBS)

demo: build
	examples/run_demo.sh $(BUILD)

check: build
	cd $(BUILD) && $(CTEST) --output-on-failure -j$(CTEST_JOBS) --timeout $(TEST_TIMEOUT)
	@if [ -x maint/check_bindings.sh ] || [ -f maint/check_bindings.sh ]; then \
	  echo "== maint/check_bindings.sh"; sh maint/check_bindings.sh; rc=$$?; \
	  if [ $$rc -eq 77 ]; then echo "(bindings check skipped)"; elif [ $$rc -ne 0 ]; then exit $$rc; fi; \
	fi

# Sanitizers: leak detection is off by default (LeakSanitizer needs ptrace,
# which containers often forbid); ASAN_OPTIONS from the environment wins.
check-asan:
	$(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCOURIER_SANITIZE=ON
	$(CMAKE) --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && \
	  ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1} \
	  UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	  $(CTEST) --output-on-failure -j$(CTEST_JOBS) --timeout $(TEST_TIMEOUT) -L unit && \
	  ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1} \
	  UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	  $(CTEST) --output-on-failure -j$(CTEST_JOBS) --timeout $(TEST_TIMEOUT) -L mpi -R '\.np[12]$$'

# ThreadSanitizer over the thr label (docs/threads.md).  It sees the threads
# of one process only: the shared-memory rings between processes are outside
# its view.  Two tests are left out, for reasons of their own, not the
# library's: thr_omp (libgomp is not built with ThreadSanitizer, which then
# cannot see OpenMP's barriers), thr_async and thr_async_nbc (they read their
# receive buffers while the progress thread fills them, on purpose).
# TSAN_OPTIONS from the environment wins.
TSAN_EXCLUDE ?= ^mpi\.thr_(omp|async|async_nbc)\.
check-tsan:
	$(CMAKE) -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCOURIER_TSAN=ON
	$(CMAKE) --build $(TSAN_BUILD) -j$(JOBS) --target thr_programs
	cd $(TSAN_BUILD) && \
	  TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
	  $(CTEST) --output-on-failure -j$(CTEST_JOBS) --timeout $(TEST_TIMEOUT) -L thr -E '$(TSAN_EXCLUDE)'

install: build
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

bindings:
	python3 maint/gen_bindings.py
	python3 maint/gen_man.py

man:
	python3 maint/gen_man.py

settings-doc: build
	{ sed '/^| Variable |/,$$d' docs/settings.md 2>/dev/null || true; } > docs/settings.md.new
	$(BUILD)/tools/courier_info --settings-md >> docs/settings.md.new
	mv docs/settings.md.new docs/settings.md

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
