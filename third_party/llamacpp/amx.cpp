// The engine's cgo packages compile ggml-cpu.cpp but not ggml's AMX kernels
// (ggml-cpu/amx), which cmake builds. When the compiler targets AMX (as
// -march=native does on Xeons since Sapphire Rapids), ggml-cpu.cpp asks the
// AMX code for its buffer type and the link fails. This answers for it: no
// AMX buffer type, so the CPU backend runs its AVX-512 kernels as on any
// other x86-64 CPU.

#if defined(__AMX_INT8__) && defined(__AVX512VNNI__)
struct ggml_backend_buffer_type;

struct ggml_backend_buffer_type * ggml_backend_amx_buffer_type(void) { return nullptr; }
#endif
