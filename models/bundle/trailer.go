package bundle

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
)

// TrailerSize is the size of the trailer at the end of a bundle.
const TrailerSize = 256

// Version is the newest trailer format this package writes and reads:
// 2 when a bundle carries files after the model, else 1.
const Version = 2

// maxName is the room for the model name in the trailer.
const maxName = 128

const magic = "OGBUNDLE"

// Errors callers branch on.
var (
	// ErrNotBundle means the file carries no model: it ends where the
	// executable ends.
	ErrNotBundle = errors.New("not a bundle")
	// ErrCorrupt means the file carries a model that cannot be trusted:
	// a damaged or truncated trailer or payload.
	ErrCorrupt = errors.New("corrupt bundle")
)

// Compression is how the payload is stored.
type Compression uint32

// Payload encodings.
const (
	None Compression = 0
	Zstd Compression = 1
)

func (c Compression) String() string {
	switch c {
	case None:
		return "none"
	case Zstd:
		return "zstd"
	}
	return fmt.Sprintf("compression(%d)", uint32(c))
}

// MarshalText encodes c as its name.
func (c Compression) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText decodes a name written by MarshalText.
func (c *Compression) UnmarshalText(b []byte) error {
	v, err := ParseCompression(string(b))
	if err == nil {
		*c = v
	}
	return err
}

// ParseCompression parses "zstd" or "none".
func ParseCompression(s string) (Compression, error) {
	switch strings.ToLower(s) {
	case "zstd":
		return Zstd, nil
	case "none":
		return None, nil
	}
	return 0, fmt.Errorf("bundle: unknown compression %q (want zstd or none)", s)
}

// Info is what a bundle's trailer records.
type Info struct {
	Version     int         `json:"version"`
	Compression Compression `json:"compression"`
	Offset      int64       `json:"payload_offset"` // where the payload starts: the executable's size
	Length      int64       `json:"payload_length"` // payload bytes as stored
	Size        int64       `json:"size"`           // GGUF bytes after decompression
	SHA256      string      `json:"sha256"`         // hex SHA-256 of the GGUF
	Name        string      `json:"name"`           // model name
	// Extras is the length of the files section after the payload (a tar
	// of files such as the model's prompt cache; see Options.Files), 0
	// when there is none.
	Extras int64 `json:"extras_length,omitempty"`
}

// FileSize is the size of the whole bundle the trailer describes.
func (i Info) FileSize() int64 { return i.Offset + i.Length + i.Extras + TrailerSize }

// marshal encodes the trailer.
func (i Info) marshal() ([]byte, error) {
	sum, err := hex.DecodeString(i.SHA256)
	if err != nil || len(sum) != 32 {
		return nil, fmt.Errorf("bundle: SHA-256 %q is not 64 hex digits", i.SHA256)
	}
	if len(i.Name) > maxName {
		return nil, fmt.Errorf("bundle: model name %q is longer than %d bytes", i.Name, maxName)
	}
	if i.Offset < 0 || i.Length < 0 || i.Size < 0 || i.Extras < 0 {
		return nil, fmt.Errorf("bundle: negative offset or size")
	}
	b := make([]byte, TrailerSize)
	le := binary.LittleEndian
	version := uint32(1)
	if i.Extras > 0 {
		version = 2
	}
	le.PutUint32(b[0:], version)
	le.PutUint32(b[4:], uint32(i.Compression))
	le.PutUint64(b[8:], uint64(i.Offset))
	le.PutUint64(b[16:], uint64(i.Length))
	le.PutUint64(b[24:], uint64(i.Size))
	copy(b[32:64], sum)
	le.PutUint16(b[64:], uint16(len(i.Name)))
	copy(b[66:66+maxName], i.Name)
	le.PutUint64(b[194:], uint64(i.Extras))
	le.PutUint32(b[244:], crc32.ChecksumIEEE(b[:244]))
	copy(b[248:], magic)
	return b, nil
}

// hasMagic reports whether b, the last TrailerSize bytes of a file, ends
// with the trailer magic.
func hasMagic(b []byte) bool { return string(b[TrailerSize-len(magic):]) == magic }

// unmarshal decodes and checks a trailer read from the end of a file of
// fileSize bytes. b must end with the magic.
func unmarshal(b []byte, fileSize int64) (Info, error) {
	le := binary.LittleEndian
	if got, want := le.Uint32(b[244:]), crc32.ChecksumIEEE(b[:244]); got != want {
		return Info{}, fmt.Errorf("%w: trailer checksum %08x, want %08x", ErrCorrupt, got, want)
	}
	i := Info{
		Version:     int(le.Uint32(b[0:])),
		Compression: Compression(le.Uint32(b[4:])),
		SHA256:      hex.EncodeToString(b[32:64]),
	}
	if i.Version != 1 && i.Version != Version {
		return Info{}, fmt.Errorf("%w: trailer version %d, this offgrid reads version %d", ErrCorrupt, i.Version, Version)
	}
	if i.Compression != None && i.Compression != Zstd {
		return Info{}, fmt.Errorf("%w: unknown %v", ErrCorrupt, i.Compression)
	}
	off, length, size, extras := le.Uint64(b[8:]), le.Uint64(b[16:]), le.Uint64(b[24:]), le.Uint64(b[194:])
	const limit = 1 << 62
	if off > limit || length > limit || size > limit || extras > limit || off+length+extras+TrailerSize != uint64(fileSize) {
		return Info{}, fmt.Errorf("%w: trailer says payload at %d, %d bytes, which does not fit a %d-byte file (truncated?)", ErrCorrupt, off, length, fileSize)
	}
	if i.Compression == None && length != size {
		return Info{}, fmt.Errorf("%w: uncompressed payload of %d bytes for a %d-byte model", ErrCorrupt, length, size)
	}
	i.Offset, i.Length, i.Size, i.Extras = int64(off), int64(length), int64(size), int64(extras)
	n := int(le.Uint16(b[64:]))
	if n == 0 || n > maxName {
		return Info{}, fmt.Errorf("%w: model name length %d", ErrCorrupt, n)
	}
	i.Name = string(b[66 : 66+n])
	return i, nil
}
