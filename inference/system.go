package inference

/*
#include <stdlib.h>
#include "shim.h"
#include "ggml-backend.h"
*/
import "C"

import (
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/offgrid-ai/offgrid/third_party/llamacpp"
)

// EngineInfo describes the compiled-in engine.
type EngineInfo struct {
	Commit     string   // upstream llama.cpp commit
	Compiler   string   // C compiler that built it
	Target     string   // build target
	SystemInfo string   // llama.cpp's system info line: SIMD features per backend
	Devices    []string // compute devices, e.g. "CPU: AMD EPYC ..."
}

// Engine returns what the compiled-in engine is and what it can use.
func Engine() EngineInfo {
	initBackend()
	info := EngineInfo{
		Commit:     llamacpp.Commit(),
		Compiler:   llamacpp.Compiler(),
		Target:     llamacpp.BuildTarget(),
		SystemInfo: strings.TrimSpace(C.GoString(C.llama_print_system_info())),
	}
	for i := range C.ggml_backend_dev_count() {
		d := C.ggml_backend_dev_get(i)
		info.Devices = append(info.Devices, C.GoString(C.ggml_backend_dev_name(d))+": "+C.GoString(C.ggml_backend_dev_description(d)))
	}
	return info
}

// LibPathEnv names the environment variable with extra directories
// (separated by the OS list separator) searched for backend libraries such
// as libggml-cuda.so built by `make cuda`.
const LibPathEnv = "OFFGRID_LIB_PATH"

// gpuBackends are the ggml backends offgrid can load as libraries.
var gpuBackends = [...]string{"cuda", "hip", "vulkan"}

// loadBackends loads dynamically built ggml backends (CUDA, …) from
// OFFGRID_LIB_PATH and from a lib folder next to the executable. The CPU
// backend (and Metal on Apple silicon) is compiled in and always present.
func loadBackends() {
	var dirs []string
	if v := os.Getenv(LibPathEnv); v != "" {
		dirs = append(dirs, filepath.SplitList(v)...)
	}
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		dirs = append(dirs, filepath.Join(dir, "lib"), filepath.Join(dir, "..", "lib", "offgrid"))
	}
	for _, dir := range dirs {
		for _, name := range gpuBackends {
			for _, pattern := range []string{"libggml-" + name + ".so", "libggml-" + name + ".dylib", "ggml-" + name + ".dll"} {
				lib := filepath.Join(dir, pattern)
				if _, err := os.Stat(lib); err != nil {
					continue
				}
				clib := C.CString(lib)
				C.ggml_backend_load(clib)
				C.free(unsafe.Pointer(clib))
			}
		}
	}
}
