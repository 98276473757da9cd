# The two commands of the README: `make demo` (set up, build, run the main job) and `make test`.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
DEMO_OUT ?= rooftime-study
STUDY_FLAGS ?=

FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 20

.PHONY: all deps build demo test test-plain fuzz clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

# The main job: measure this machine, run the Conv2D and LSTM studies, write the report.
# STUDY_FLAGS=--quick for the short version.
demo: build
	./$(BUILD)/rooftime study -o $(DEMO_OUT) $(STUDY_FLAGS)
	@echo "open $(DEMO_OUT)/report.html in a browser"

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
