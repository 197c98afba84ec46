# flextile — build, demo, tests and benchmarks.
# `make demo` and `make test` work on a fresh Debian machine: both run `make deps` first.

CARGO   ?= cargo
# make's built-in default for CC is `cc`, which `?=` would keep: gcc unless
# the command line or the environment names another compiler.
ifeq ($(origin CC),default)
CC      = gcc
endif
CFLAGS  ?= -O2 -std=gnu99 -fopenmp -ffp-contract=off -fno-fast-math -Wno-unknown-pragmas
FLEXTILE = target/release/flextile
DEMO_SRC = benchmarks/unsharp-mask.c
DEMO_DIR = target/demo
# `make install` copies the release binary to $(PREFIX)/bin.
PREFIX  ?= $(HOME)/.local

.PHONY: all deps build install demo check test test-all snapshot lint bench autotune difftest fuzz clean

all: build

# System packages (libclang, autotools for isl, gcc with OpenMP); idempotent.
deps:
	@bash third_party/install-deps.sh

build: deps
	$(CARGO) build --release

# Installs the release binary as $(PREFIX)/bin/flextile (default ~/.local/bin).
install: build
	install -d $(PREFIX)/bin
	install -m 755 $(FLEXTILE) $(PREFIX)/bin/flextile
	@echo "installed $(PREFIX)/bin/flextile (it needs libclang at run time, as built)"

# Compile a bundled example (Unsharp Mask, overlapped tiling) with flextile and
# check it with --verify (the original and the output built with the same
# compiler and flags, run with 2 threads, outputs compared byte for byte);
# -MD writes the dependency file. Then time both: tools/demo-timing.sh. Last,
# the same pipeline to CUDA, verified the same way.
demo: build
	@mkdir -p $(DEMO_DIR)
	$(FLEXTILE) $(DEMO_SRC) -I benchmarks -o $(DEMO_DIR)/unsharp_flextile.c -MD \
	  --scalene --tile-sizes 8,512 --report \
	  --verify --cc $(CC) --cflags "$(CFLAGS)" -- --size bench --reps 1 --threads 2
	@echo "--- $(DEMO_DIR)/unsharp_flextile.d (-MD: what the output depends on), first lines ---"
	@head -4 $(DEMO_DIR)/unsharp_flextile.d
	@echo "--- generated region (first lines) ---"
	@sed -n '/flextile: loop chain/,$$p' $(DEMO_DIR)/unsharp_flextile.c | head -32
	$(CC) $(CFLAGS) -I benchmarks -o $(DEMO_DIR)/original $(DEMO_SRC) -lm
	$(CC) $(CFLAGS) -I benchmarks -o $(DEMO_DIR)/flextile $(DEMO_DIR)/unsharp_flextile.c -lm
	@bash tools/demo-timing.sh $(DEMO_DIR)/original $(DEMO_DIR)/flextile
	@echo "--- CUDA: one overlapped tile per thread block, checked by --verify (on the CPU emulation of CUDA where there is no GPU) ---"
	$(FLEXTILE) $(DEMO_SRC) -I benchmarks -o $(DEMO_DIR)/unsharp_flextile.cu \
	  --scalene --report --verify --cc $(CC) --cflags "$(CFLAGS)" -- --size test --reps 1

# The test tiers (tools/run-tests.sh, docs/testing.md), all with the one release build:
# - check: unit tests, CLI tests and a fixed sample of the testsuite: before every commit;
# - test: CI's entry point: every test, the testsuite's CUDA sets in one share of three
#   (chosen by the commit), a 200-case sample of the differential test on random programs;
# - test-all: the same with every CUDA set.
# Each prints how long its last successful run took on this machine.
check: deps
	@bash tools/run-tests.sh check

test: deps
	@bash tools/run-tests.sh test

test-all: deps
	@bash tools/run-tests.sh all

# Differential testing on random programs (tools/difftest/README.md): N cases from seed SEED;
# failures are minimised and saved as testsuite/programs/regress_<seed>_<n>.c.
N    ?= 1000
SEED ?= 1
difftest: build
	python3 tools/difftest/run.py -n $(N) --seed $(SEED)

# Fuzz the pragma parser, the front end and the driver (fuzz/README.md): FUZZ_TARGET for FUZZ_TIME s.
FUZZ_TARGET ?= compile
FUZZ_TIME   ?= 600
fuzz: deps
	bash fuzz/run.sh $(FUZZ_TARGET) $(FUZZ_TIME)

lint: deps
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings

# Snapshots of the generated code (tools/snapshot.py, tests/snapshots.rs): rewrite
# tests/snapshots/ after reviewing what changed; the test tiers compare against it.
snapshot: build
	python3 tools/snapshot.py --write

# Benchmarks: every program's original and flextile variants, 1 and 2 threads, one run.
bench: build
	python3 bench/run.py

# GPU benchmarks (issue 20): each benchmark's CUDA variants on this machine's GPU, outputs
# compared with the C original's, end-to-end and kernel times; writes bench/gpu-results.md.
# Without a GPU it says so and fails (bench/gpu.py --emulate checks the plumbing on the CPU).
bench-gpu: build
	python3 bench/gpu.py --out bench/gpu-results.md

# Autotuning (issue 19): PolyMage's search space (overlap tolerance x tile sizes)
# for one benchmark, against flextile's model-driven grouping; see bench/autotune.py.
# make autotune PROG=harris [AUTOTUNE_FLAGS="--quick --shape scalene --threads 16"]
ifneq ($(filter autotune,$(MAKECMDGOALS)),)
ifeq ($(PROG),)
$(error make autotune: set PROG to a benchmark, e.g. make autotune PROG=harris (options: AUTOTUNE_FLAGS="--quick"))
endif
endif
autotune: build
	python3 bench/autotune.py $(PROG) $(AUTOTUNE_FLAGS)

clean:
	$(CARGO) clean
