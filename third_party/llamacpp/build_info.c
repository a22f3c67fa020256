// Defines the build-information symbols of llama.cpp's build-info.cpp for the
// engine pinned in go.mod (github.com/ollama/ollama v0.17.4 tracks llama.cpp ec98e2002).
#include "build_info.h"

#define OFFGRID_STR2(x) #x
#define OFFGRID_STR(x) OFFGRID_STR2(x)

#if defined(__clang__)
#define OFFGRID_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define OFFGRID_COMPILER "gcc " OFFGRID_STR(__GNUC__) "." OFFGRID_STR(__GNUC_MINOR__) "." OFFGRID_STR(__GNUC_PATCHLEVEL__)
#else
#define OFFGRID_COMPILER "unknown"
#endif

#if defined(__x86_64__)
#define OFFGRID_ARCH "x86_64"
#elif defined(__aarch64__)
#define OFFGRID_ARCH "aarch64"
#else
#define OFFGRID_ARCH "unknown"
#endif

#if defined(__linux__)
#define OFFGRID_OS "linux"
#elif defined(__APPLE__)
#define OFFGRID_OS "darwin"
#elif defined(_WIN32)
#define OFFGRID_OS "windows"
#else
#define OFFGRID_OS "unknown"
#endif

int LLAMA_BUILD_NUMBER = 0;
char const *LLAMA_COMMIT = "ec98e2002";
char const *LLAMA_COMPILER = OFFGRID_COMPILER;
char const *LLAMA_BUILD_TARGET = OFFGRID_ARCH "-" OFFGRID_OS;
