// Package bundle appends a GGUF model to an offgrid executable and finds it
// again, so one file carries both the program and its model.
//
// A bundle is laid out as
//
//	executable | payload | files | trailer
//
// where the payload is the GGUF, zstd-compressed or stored as is, files is
// an optional tar of other files that go with the model (its prompt cache;
// version 2 only), and the trailer is TrailerSize bytes at the very end of the file (all integers
// little-endian):
//
//	  0  uint32    format version (1; 2 when there are files)
//	  4  uint32    compression (0 none, 1 zstd)
//	  8  uint64    payload offset (= size of the executable)
//	 16  uint64    payload length
//	 24  uint64    uncompressed size of the GGUF
//	 32  [32]byte  SHA-256 of the GGUF
//	 64  uint16    length of the model name
//	 66  [128]byte model name, zero-padded
//	194  uint64    length of the files section (version 2; 0 in version 1)
//	202  [42]byte  reserved, zero
//	244  uint32    CRC-32 (IEEE) of bytes 0..243
//	248  [8]byte   magic "OGBUNDLE"
//
// Reading the trailer costs one read of the last TrailerSize bytes, so a
// program can check itself for a model at every start.
package bundle
