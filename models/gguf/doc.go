// Package gguf reads and writes GGUF model files.
//
// The reader is strict: every count, length and offset is checked against
// the bytes that remain in the file before anything is allocated, so a
// truncated, corrupt or hostile file yields an error wrapping [ErrFormat]
// rather than a huge allocation or a crash. offgrid checks files with it
// before they reach llama.cpp, whose loader trusts more than we do.
//
// We wrote our own reader instead of using gpustack/gguf-parser-go: that
// package estimates memory for many runtimes and pulls in a large
// dependency tree, while we need a small reader that bounds every
// allocation by the file size, and a writer for synthetic test models.
package gguf
