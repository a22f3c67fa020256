# offgrid build. Two commands do everything on a fresh machine with Go and a
# C compiler:  `make run` (agent on the default model) and `make test`.

GO      ?= go
BIN     := bin/offgrid
ENGINE  := github.com/ollama/ollama
INCLUDE := third_party/llamacpp/include

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

.PHONY: all build headers test vet env clean

all: build

# headers links the engine's public headers from the Go module cache into a
# git-ignored folder that our cgo directives reference.
headers: $(INCLUDE)/.stamp
$(INCLUDE)/.stamp: go.mod
	@$(GO) mod download $(ENGINE)
	@dir=$$($(GO) list -m -f '{{.Dir}}' $(ENGINE)) && test -n "$$dir" && \
	  rm -rf $(INCLUDE) && mkdir -p $(INCLUDE) && \
	  ln -s $$dir/llama/llama.cpp/include/*.h $(INCLUDE)/ && \
	  ln -s $$dir/ml/backend/ggml/ggml/include/*.h $(INCLUDE)/ && \
	  touch $@

build: headers
	$(GO) build -o $(BIN) ./cmd/offgrid

vet: headers
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

test: headers vet
	$(GO) test ./...

# env prints the build environment, for `eval $$(make -s env)`.
env:
	@echo export CGO_CFLAGS=\"$(CGO_CFLAGS)\" CGO_CXXFLAGS=\"$(CGO_CXXFLAGS)\"

clean:
	rm -rf bin $(INCLUDE)
