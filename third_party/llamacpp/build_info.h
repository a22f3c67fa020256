// Build-information symbols that llama.cpp's build normally generates.
#ifndef OFFGRID_BUILD_INFO_H
#define OFFGRID_BUILD_INFO_H
extern int LLAMA_BUILD_NUMBER;
extern char const *LLAMA_COMMIT;
extern char const *LLAMA_COMPILER;
extern char const *LLAMA_BUILD_TARGET;
#endif
