# The README's two commands. Both install the Debian packages they need first.
#   make demo   builds Rill (release), generates and loads the demo world, renders it to PNGs
#               (build/demo/*.png) and, when a display exists, opens it in a window
#   make test   checks the formatting and the API shape, builds and runs every test (release), then
#               the unit tests and a set of end-to-end CLI cases (label "sanitize") under ASan + UBSan,
#               then every fuzz target on its corpus plus CI_FUZZ_RUNS new inputs from seed 1
#               (the same inputs every run: scripts/fuzz.sh FUZZ_RUNS)
#   make fuzz   builds the fuzz targets (clang + libFuzzer, ASan + UBSan) and runs each one for
#               FUZZ_SECONDS (scripts/fuzz.sh; findings land in build/fuzz/artifacts/)
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 300
CI_FUZZ_RUNS ?= 10000
CI_FUZZ_SECONDS ?= 300

.PHONY: all deps build demo test format-check api-check test-release test-asan test-fuzz fuzz fuzz-build format clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

# With a display (DISPLAY or WAYLAND_DISPLAY set) the demo also opens the world in a window.
DEMO_WINDOW := $(if $(or $(DISPLAY),$(WAYLAND_DISPLAY)),--window,)

demo: build
	./build/release/tools/rill demo --out build/demo $(DEMO_WINDOW)

# Timeouts scale with the machine: CTEST_TIMEOUT_SCALE=3 make test triples them; unset, they are
# multiplied by the load per core when ctest starts (tests/CMakeLists.txt, rill_test_timeout).
test: format-check api-check test-release test-asan test-fuzz

# Every tracked .c/.h must be clang-formatted (.clang-format); `make format` fixes it.
format-check: deps
	scripts/format-check.sh

# The public API's shape and the API list in docs/architecture.md (scripts/api-check.sh).
api-check:
	scripts/api-check.sh

test-release: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)
	ctest --preset release -j $(JOBS)

test-asan: deps
	cmake --preset asan >/dev/null
	cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

fuzz-build: deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS)

# CI: each target replays its corpus (seeds + regression inputs), then makes CI_FUZZ_RUNS mutations
# from seed 1 with address randomization off, so a run explores the same inputs every time;
# CI_FUZZ_SECONDS only bounds a hanging target.
test-fuzz: fuzz-build
	FUZZ_SEED=1 FUZZ_RUNS=$(CI_FUZZ_RUNS) scripts/fuzz.sh $(CI_FUZZ_SECONDS)

fuzz: fuzz-build
	scripts/fuzz.sh $(FUZZ_SECONDS)

format:
	clang-format-16 -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build
