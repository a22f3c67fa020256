package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
)

// Magic starts every GGUF file.
const Magic = "GGUF"

// DefaultAlignment is the tensor data alignment when general.alignment is absent.
const DefaultAlignment = 32

// maxDims is ggml's GGML_MAX_DIMS.
const maxDims = 4

// ErrFormat is wrapped by every error about the content of a file.
var ErrFormat = errors.New("gguf: invalid file")

// KV is one metadata entry. Value holds a Go value of the matching type:
// uint8, int8, uint16, int16, uint32, int32, float32, bool, string, uint64,
// int64, float64, or a slice of one of those for arrays.
type KV struct {
	Key   string
	Value any
}

// TensorInfo describes one tensor. Offset is relative to the start of the
// tensor data section.
type TensorInfo struct {
	Name   string
	Dims   []uint64
	Type   TensorType
	Offset uint64
	Size   uint64 // bytes
}

// Elements returns the number of elements in the tensor.
func (t TensorInfo) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// File is the parsed header of a GGUF file.
type File struct {
	Version    uint32
	KV         []KV // in file order
	Tensors    []TensorInfo
	Alignment  uint64
	DataOffset int64 // where the tensor data section starts
	Size       int64 // file size
	index      map[string]int
}

// Open reads the header of the GGUF file at path.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	gf, err := Read(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return gf, nil
}

// Read parses the header of a GGUF file of the given size.
func Read(r io.ReaderAt, size int64) (*File, error) {
	d := &decoder{r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 1<<16), size: size}
	f, err := d.file()
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: truncated at byte %d of %d", ErrFormat, d.pos, size)
		}
		return nil, err
	}
	return f, nil
}

type decoder struct {
	r    *bufio.Reader
	pos  int64
	size int64
	buf  [8]byte
}

func (d *decoder) errf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format+" (at byte %d)", append([]any{ErrFormat}, append(args, d.pos)...)...)
}

func (d *decoder) remaining() int64 { return d.size - d.pos }

func (d *decoder) read(n int) ([]byte, error) {
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	d.pos += int64(n)
	return b, nil
}

func (d *decoder) u32() (uint32, error) {
	b, err := d.read(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64() (uint64, error) {
	b, err := d.read(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a uint64 count of items each at least minSize bytes long and
// checks that they can fit in what remains of the file.
func (d *decoder) count(what string, minSize int64) (int, error) {
	n, err := d.u64()
	if err != nil {
		return 0, err
	}
	if n > uint64(d.remaining()/minSize) {
		return 0, d.errf("%s count %d does not fit in the %d bytes left", what, n, d.remaining())
	}
	return int(n), nil
}

func (d *decoder) str(what string) (string, error) {
	n, err := d.count(what+" length", 1)
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		return "", io.ErrUnexpectedEOF
	}
	d.pos += int64(n)
	return string(b), nil
}

func (d *decoder) file() (*File, error) {
	magic, err := d.read(4)
	if err != nil {
		return nil, fmt.Errorf("%w: shorter than a GGUF header (%d bytes)", ErrFormat, d.size)
	}
	if string(magic) != Magic {
		return nil, fmt.Errorf("%w: not a GGUF file (starts with %q)", ErrFormat, magic)
	}
	f := &File{Size: d.size, Alignment: DefaultAlignment, index: map[string]int{}}
	if f.Version, err = d.u32(); err != nil {
		return nil, err
	}
	if f.Version < 2 || f.Version > 3 {
		return nil, d.errf("unsupported GGUF version %d (want 2 or 3)", f.Version)
	}
	// A tensor info is at least 8+1 (name) + 4 + 8 + 4 + 8 bytes; a KV at least 8+1+4+1.
	nt, err := d.count("tensor", 33)
	if err != nil {
		return nil, err
	}
	nkv, err := d.count("metadata", 14)
	if err != nil {
		return nil, err
	}
	f.KV = make([]KV, 0, nkv)
	for i := 0; i < nkv; i++ {
		key, err := d.str("key")
		if err != nil {
			return nil, err
		}
		if key == "" {
			return nil, d.errf("metadata key %d is empty", i)
		}
		if _, dup := f.index[key]; dup {
			return nil, d.errf("duplicate metadata key %q", key)
		}
		t, err := d.u32()
		if err != nil {
			return nil, err
		}
		v, err := d.value(key, ValueType(t), true)
		if err != nil {
			return nil, err
		}
		f.index[key] = len(f.KV)
		f.KV = append(f.KV, KV{key, v})
	}
	if v, ok := f.Get("general.alignment"); ok {
		a, ok := v.(uint32)
		if !ok || a == 0 || a&(a-1) != 0 {
			return nil, d.errf("general.alignment %v is not a power of two uint32", v)
		}
		f.Alignment = uint64(a)
	}
	f.Tensors = make([]TensorInfo, 0, nt)
	names := make(map[string]bool, nt)
	for i := 0; i < nt; i++ {
		t, err := d.tensorInfo(f.Alignment)
		if err != nil {
			return nil, err
		}
		if names[t.Name] {
			return nil, d.errf("duplicate tensor %q", t.Name)
		}
		names[t.Name] = true
		f.Tensors = append(f.Tensors, t)
	}
	f.DataOffset = (d.pos + int64(f.Alignment) - 1) / int64(f.Alignment) * int64(f.Alignment)
	if nt > 0 && f.DataOffset > d.size {
		return nil, d.errf("tensor data would start at %d, past the end of the file", f.DataOffset)
	}
	data := uint64(d.size - f.DataOffset)
	for _, t := range f.Tensors {
		if t.Offset > data || t.Size > data-t.Offset {
			return nil, fmt.Errorf("%w: tensor %q (%d bytes at data offset %d) extends past the end of the file (%d data bytes)",
				ErrFormat, t.Name, t.Size, t.Offset, data)
		}
	}
	return f, nil
}

func (d *decoder) tensorInfo(align uint64) (TensorInfo, error) {
	var t TensorInfo
	var err error
	if t.Name, err = d.str("tensor name"); err != nil {
		return t, err
	}
	nd, err := d.u32()
	if err != nil {
		return t, err
	}
	if nd == 0 || nd > maxDims {
		return t, d.errf("tensor %q has %d dimensions (1 to %d allowed)", t.Name, nd, maxDims)
	}
	t.Dims = make([]uint64, nd)
	elems := uint64(1)
	for i := range t.Dims {
		if t.Dims[i], err = d.u64(); err != nil {
			return t, err
		}
		if t.Dims[i] == 0 || t.Dims[i] > math.MaxInt64 {
			return t, d.errf("tensor %q dimension %d is %d", t.Name, i, t.Dims[i])
		}
		if elems > math.MaxInt64/t.Dims[i] {
			return t, d.errf("tensor %q element count overflows", t.Name)
		}
		elems *= t.Dims[i]
	}
	tt, err := d.u32()
	if err != nil {
		return t, err
	}
	t.Type = TensorType(tt)
	ti, ok := tensorTypes[t.Type]
	if !ok {
		return t, d.errf("tensor %q has unknown type %d", t.Name, tt)
	}
	if t.Dims[0]%uint64(ti.blockSize) != 0 {
		return t, d.errf("tensor %q: first dimension %d is not a multiple of %s's block size %d", t.Name, t.Dims[0], ti.name, ti.blockSize)
	}
	blocks := elems / uint64(ti.blockSize)
	if blocks > math.MaxInt64/uint64(ti.typeSize) {
		return t, d.errf("tensor %q byte size overflows", t.Name)
	}
	t.Size = blocks * uint64(ti.typeSize)
	if t.Offset, err = d.u64(); err != nil {
		return t, err
	}
	if t.Offset%align != 0 {
		return t, d.errf("tensor %q offset %d is not aligned to %d", t.Name, t.Offset, align)
	}
	return t, nil
}

// value reads one value of type t. Arrays of arrays are refused, as
// llama.cpp does.
func (d *decoder) value(key string, t ValueType, top bool) (any, error) {
	switch t {
	case TypeString:
		return d.str("string")
	case TypeArray:
		if !top {
			return nil, d.errf("%s: nested arrays are not supported", key)
		}
		et, err := d.u32()
		if err != nil {
			return nil, err
		}
		return d.array(key, ValueType(et))
	}
	b, err := d.scalar(key, t)
	if err != nil {
		return nil, err
	}
	return decodeScalar(t, b), nil
}

func (d *decoder) scalar(key string, t ValueType) ([]byte, error) {
	n := t.size()
	if n == 0 {
		return nil, d.errf("%s: unknown value type %d", key, uint32(t))
	}
	return d.read(int(n))
}

func decodeScalar(t ValueType, b []byte) any {
	le := binary.LittleEndian
	switch t {
	case TypeUint8:
		return b[0]
	case TypeInt8:
		return int8(b[0])
	case TypeBool:
		return b[0] != 0
	case TypeUint16:
		return le.Uint16(b)
	case TypeInt16:
		return int16(le.Uint16(b))
	case TypeUint32:
		return le.Uint32(b)
	case TypeInt32:
		return int32(le.Uint32(b))
	case TypeFloat32:
		return math.Float32frombits(le.Uint32(b))
	case TypeUint64:
		return le.Uint64(b)
	case TypeInt64:
		return int64(le.Uint64(b))
	case TypeFloat64:
		return math.Float64frombits(le.Uint64(b))
	}
	return nil
}

func (d *decoder) array(key string, et ValueType) (any, error) {
	min := et.size()
	if et == TypeString {
		min = 8
	} else if min == 0 {
		return nil, d.errf("%s: arrays of %s are not supported", key, et)
	}
	n, err := d.count(key+" array", min)
	if err != nil {
		return nil, err
	}
	if et == TypeString {
		out := make([]string, n)
		for i := range out {
			if out[i], err = d.str(key + " element"); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	raw := make([]byte, int64(n)*min)
	if _, err := io.ReadFull(d.r, raw); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	d.pos += int64(len(raw))
	return decodeArray(et, n, raw), nil
}

func decodeArray(et ValueType, n int, raw []byte) any {
	sz := int(et.size())
	at := func(i int) any { return decodeScalar(et, raw[i*sz:(i+1)*sz]) }
	switch et {
	case TypeUint8:
		return fill[uint8](n, at)
	case TypeInt8:
		return fill[int8](n, at)
	case TypeBool:
		return fill[bool](n, at)
	case TypeUint16:
		return fill[uint16](n, at)
	case TypeInt16:
		return fill[int16](n, at)
	case TypeUint32:
		return fill[uint32](n, at)
	case TypeInt32:
		return fill[int32](n, at)
	case TypeFloat32:
		return fill[float32](n, at)
	case TypeUint64:
		return fill[uint64](n, at)
	case TypeInt64:
		return fill[int64](n, at)
	case TypeFloat64:
		return fill[float64](n, at)
	}
	return nil
}

func fill[T any](n int, at func(int) any) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = at(i).(T)
	}
	return out
}

// Get returns the value of a metadata key.
func (f *File) Get(key string) (any, bool) {
	i, ok := f.index[key]
	if !ok {
		return nil, false
	}
	return f.KV[i].Value, true
}

// String returns a string metadata value.
func (f *File) String(key string) (string, bool) {
	v, _ := f.Get(key)
	s, ok := v.(string)
	return s, ok
}

// Uint returns an unsigned or non-negative integer metadata value.
func (f *File) Uint(key string) (uint64, bool) {
	v, _ := f.Get(key)
	switch x := v.(type) {
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	case int8:
		return uint64(x), x >= 0
	case int16:
		return uint64(x), x >= 0
	case int32:
		return uint64(x), x >= 0
	case int64:
		return uint64(x), x >= 0
	}
	return 0, false
}

// ArrayLen returns the length of an array metadata value.
func (f *File) ArrayLen(key string) (int, bool) {
	v, ok := f.Get(key)
	if !ok {
		return 0, false
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return rv.Len(), true
	}
	return 0, false
}

// Architecture returns general.architecture.
func (f *File) Architecture() string { s, _ := f.String("general.architecture"); return s }

// ParamCount returns the number of tensor elements (parameters).
func (f *File) ParamCount() uint64 {
	var n uint64
	for _, t := range f.Tensors {
		n += t.Elements()
	}
	return n
}

// TensorBytes returns the total size of the tensor data.
func (f *File) TensorBytes() uint64 {
	var n uint64
	for _, t := range f.Tensors {
		n += t.Size
	}
	return n
}
