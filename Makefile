# flextile — build, demo, tests and benchmarks.
# `make demo` and `make test` work on a fresh Debian machine: both run `make deps` first.

CARGO   ?= cargo
CC      ?= gcc
CFLAGS  ?= -O2 -std=gnu99 -fopenmp -ffp-contract=off -fno-fast-math -Wno-unknown-pragmas
FLEXTILE = target/release/flextile
DEMO_SRC = benchmarks/unsharp-mask.c
DEMO_DIR = target/demo

.PHONY: all deps build demo test lint bench difftest fuzz clean

all: build

# System packages (libclang, autotools for isl, gcc with OpenMP); idempotent.
deps:
	@bash third_party/install-deps.sh

build: deps
	$(CARGO) build --release

# Compile a bundled example (Unsharp Mask, overlapped tiling) with flextile, build the
# original and the output with the same flags, run both, compare their outputs.
demo: build
	@mkdir -p $(DEMO_DIR)
	$(FLEXTILE) $(DEMO_SRC) -I benchmarks -o $(DEMO_DIR)/unsharp_flextile.c --scalene --tile-sizes 8,512 --report
	$(CC) $(CFLAGS) -I benchmarks -o $(DEMO_DIR)/original $(DEMO_SRC) -lm
	$(CC) $(CFLAGS) -I benchmarks -o $(DEMO_DIR)/flextile $(DEMO_DIR)/unsharp_flextile.c -lm
	@echo "--- generated region (first lines) ---"
	@sed -n '/flextile: loop chain/,$$p' $(DEMO_DIR)/unsharp_flextile.c | head -32
	@echo "--- original, then flextile's output (2 threads) ---"
	@./$(DEMO_DIR)/original --size bench --reps 3 --threads 2 > $(DEMO_DIR)/original.out
	@./$(DEMO_DIR)/flextile --size bench --reps 3 --threads 2 > $(DEMO_DIR)/flextile.out
	@if cmp -s $(DEMO_DIR)/original.out $(DEMO_DIR)/flextile.out; then \
	  echo "demo: outputs are bit-identical ($$(grep fnv1a64 $(DEMO_DIR)/original.out))"; \
	else echo "demo: OUTPUTS DIFFER"; exit 1; fi

# Unit tests, the testsuite (every program compiled twice and compared bit for bit) and a
# fixed 200-case sample of the differential test on random programs.
test: deps
	$(CARGO) test --no-fail-fast
	$(CARGO) build --release
	python3 -m unittest -q tools/difftest/test_gen.py
	python3 tools/difftest/run.py -n 200 --seed 1 --no-save --quiet

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

# Benchmarks: every program's original and flextile variants, 1 and 2 threads, one run.
bench: build
	python3 bench/run.py

clean:
	$(CARGO) clean
