# The two commands of the README: `make demo` (set up, build, run the main job) and `make test`.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
DEMO_OUT ?= rooftime-study
STUDY_FLAGS ?=

FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 20

.PHONY: all deps build build-demo demo test test-plain fuzz clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

# What the demo and the README's later steps use: the command, the CUPTI collector and the shared
# library of the Python package (not the tests and benchmarks, a third of a fresh build's time).
DEMO_TARGETS = rooftime rooftime-cupti rooftime-shared
build-demo: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS)

# The main job: measure this machine, run the Conv2D and LSTM studies, write the report.
# STUDY_FLAGS=--quick for the short version. Its PyTorch is today's: the torch 2.x of the venv
# scripts/install-deps.sh makes (sdpa, oneDNN 3), else Debian's 1.13 (/usr/bin/python3);
# ROOFTIME_PYTHON names another. It ends with the time of each stage: installing
# and building (make build-demo), measuring the machine and running the study (as the study's own
# last line gives them), and the whole, so that a run's figures are on record.
demo: SHELL := /bin/bash
demo: DEMO_T0 := $(shell date +%s.%N)
demo: build-demo
	@t1=$$(date +%s.%N); log=$$(mktemp); trap 'rm -f "$$log"' EXIT; set -o pipefail; \
	py=$${ROOFTIME_PYTHON:-$$(bash scripts/install-deps.sh --torch2-python)}; \
	py=$${py:-/usr/bin/python3}; \
	echo "ROOFTIME_PYTHON=$$py ./$(BUILD)/rooftime study -o $(DEMO_OUT) $(STUDY_FLAGS)"; \
	ROOFTIME_PYTHON=$$py ./$(BUILD)/rooftime study -o $(DEMO_OUT) $(STUDY_FLAGS) | tee "$$log" || exit $$?; \
	t2=$$(date +%s.%N); \
	echo "open $(DEMO_OUT)/report.html in a browser"; \
	stages=$$(sed -n 's/^machine \([0-9.]*\) s, study \([0-9.]*\) s, total .*/machine \1 s, study \2 s/p' "$$log"); \
	awk -v t0="$(DEMO_T0)" -v t1="$$t1" -v t2="$$t2" -v st="$$stages" 'BEGIN { \
		all = t2 - t0; \
		printf "make demo: install and build %.0f s, %s, %d min %d s in all\n", \
			t1 - t0, st == "" ? "study (its stage times not found)" : st, \
			int(all / 60), int(all) % 60 }'

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer.
test: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DROOFTIME_SANITIZE=ON -DROOFTIME_WERROR=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS)
	@# Every parser's libFuzzer target: the bad inputs replayed, then a short run on the corpus.
	bash scripts/fuzz.sh $(FUZZ_SMOKE_SECONDS) build-fuzz

# Fuzz every parser for FUZZ_SECONDS each (clang, libFuzzer; see scripts/fuzz.sh).
fuzz: deps
	bash scripts/fuzz.sh $(FUZZ_SECONDS) build-fuzz

# The suite without sanitizers (faster, for development).
test-plain: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
