# flextile — build, demo, tests and benchmarks.
# `make demo` and `make test` work on a fresh Debian machine: both run `make deps` first.

CARGO   ?= cargo
CC      ?= gcc
CFLAGS  ?= -O2 -std=gnu99 -fopenmp -ffp-contract=off -fno-fast-math -Wno-unknown-pragmas
FLEXTILE = target/release/flextile
DEMO_SRC = testsuite/programs/jacobi2d_chain.c
DEMO_DIR = target/demo

.PHONY: all deps build demo test lint bench difftest fuzz clean

all: build

# System packages (libclang, autotools for isl, gcc with OpenMP); idempotent.
deps:
	@bash third_party/install-deps.sh

build: deps
	$(CARGO) build --release

# Compile a bundled example with flextile, build original and output, run both, compare.
demo: build
	@mkdir -p $(DEMO_DIR)
	$(FLEXTILE) $(DEMO_SRC) -o $(DEMO_DIR)/jacobi2d_flextile.c --tile --tile-sizes 16,64 -v
	$(CC) $(CFLAGS) -o $(DEMO_DIR)/original $(DEMO_SRC) -lm
	$(CC) $(CFLAGS) -o $(DEMO_DIR)/flextile $(DEMO_DIR)/jacobi2d_flextile.c -lm
	@echo "--- generated region (first lines) ---"
	@sed -n '/flextile: loop chain/,/^    }$$/p' $(DEMO_DIR)/jacobi2d_flextile.c | head -40
	@echo "--- running original and flextile output (OMP_NUM_THREADS=2) ---"
	@OMP_NUM_THREADS=2 ./$(DEMO_DIR)/original 600 50 > $(DEMO_DIR)/original.out
	@OMP_NUM_THREADS=2 ./$(DEMO_DIR)/flextile 600 50 > $(DEMO_DIR)/flextile.out
	@if cmp -s $(DEMO_DIR)/original.out $(DEMO_DIR)/flextile.out; then \
	  echo "demo: outputs are bit-identical ($$(wc -l < $(DEMO_DIR)/original.out) lines)"; \
	else echo "demo: OUTPUTS DIFFER"; exit 1; fi

# Unit tests, the testsuite (every program compiled twice and compared bit for bit) and a
# fixed 200-case sample of the differential test on random programs.
test: deps
	$(CARGO) test --no-fail-fast
	$(CARGO) build --release
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
