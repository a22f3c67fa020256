// Package llamacpp pulls the pinned llama.cpp and ggml engine into the build.
//
// The engine's C and C++ sources come from the cgo packages of the Go module
// github.com/ollama/ollama (see go.mod for the pinned version); importing
// this package compiles them into the binary. Nothing from that module is
// copied here: the inference package's shim finds the engine's public
// headers in the module itself, through CGO_CPPFLAGS (the Makefile sets
// it from `go list -m`; the README gives the line for other modules).
//
// Build with CGO_CFLAGS/CGO_CXXFLAGS carrying SIMD flags (the Makefile does):
// ggml's CPU kernels compiled without -march run several times slower.
// amx.cpp lets -march=native link on CPUs with AMX (see there).
package llamacpp

// #cgo CFLAGS: -std=c11
// #include "build_info.h"
import "C"

import (
	_ "github.com/ollama/ollama/llama/llama.cpp/src"      // llama.cpp
	_ "github.com/ollama/ollama/ml/backend/ggml/ggml/src" // ggml with its CPU backend (and Metal on darwin/arm64)
)

// Commit is the upstream llama.cpp commit the pinned engine tracks.
func Commit() string { return C.GoString(C.LLAMA_COMMIT) }

// BuildNumber is llama.cpp's build number for the pinned engine (0 when unknown).
func BuildNumber() int { return int(C.LLAMA_BUILD_NUMBER) }

// Compiler names the C compiler that built the engine.
func Compiler() string { return C.GoString(C.LLAMA_COMPILER) }

// BuildTarget names the target the engine was built for.
func BuildTarget() string { return C.GoString(C.LLAMA_BUILD_TARGET) }
