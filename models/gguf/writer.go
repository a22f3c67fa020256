package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Tensor is a tensor to write: its info and its raw little-endian data.
type Tensor struct {
	Name string
	Dims []uint64
	Type TensorType
	Data []byte
}

// Write encodes a GGUF version 3 file with the given metadata (in order) and
// tensors. Tensor data is aligned to general.alignment if set among kvs,
// else to DefaultAlignment. Data lengths must match dims and type.
func Write(w io.Writer, kvs []KV, tensors []Tensor) error {
	align := uint64(DefaultAlignment)
	for _, kv := range kvs {
		if kv.Key == "general.alignment" {
			a, ok := kv.Value.(uint32)
			if !ok || a == 0 || a&(a-1) != 0 {
				return fmt.Errorf("gguf: general.alignment must be a power-of-two uint32, got %v", kv.Value)
			}
			align = uint64(a)
		}
	}
	e := &encoder{w: bufio.NewWriter(w)}
	e.bytes([]byte(Magic))
	e.u32(3)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		if err := e.value(kv.Key, kv.Value); err != nil {
			return err
		}
	}
	var off uint64
	for _, t := range tensors {
		ti, ok := tensorTypes[t.Type]
		if !ok {
			return fmt.Errorf("gguf: tensor %q: unknown type %d", t.Name, t.Type)
		}
		info := TensorInfo{Name: t.Name, Dims: t.Dims, Type: t.Type}
		if len(t.Dims) == 0 || len(t.Dims) > maxDims || t.Dims[0]%uint64(ti.blockSize) != 0 {
			return fmt.Errorf("gguf: tensor %q: bad dimensions %v for %s", t.Name, t.Dims, t.Type)
		}
		if want := info.Elements() / uint64(ti.blockSize) * uint64(ti.typeSize); uint64(len(t.Data)) != want {
			return fmt.Errorf("gguf: tensor %q: %d data bytes, dims %v of %s need %d", t.Name, len(t.Data), t.Dims, t.Type, want)
		}
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(off)
		off = alignUp(off+uint64(len(t.Data)), align)
	}
	e.pad(align)
	for _, t := range tensors {
		e.bytes(t.Data)
		e.pad(align)
	}
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) / a * a }

type encoder struct {
	w   *bufio.Writer
	n   uint64
	err error
}

func (e *encoder) bytes(b []byte) {
	if e.err != nil {
		return
	}
	var n int
	n, e.err = e.w.Write(b)
	e.n += uint64(n)
}

func (e *encoder) pad(align uint64) {
	if r := e.n % align; r != 0 {
		e.bytes(make([]byte, align-r))
	}
}

func (e *encoder) u32(v uint32) { e.bytes(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *encoder) u64(v uint64) { e.bytes(binary.LittleEndian.AppendUint64(nil, v)) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.bytes([]byte(s)) }

func (e *encoder) value(key string, v any) error {
	if t, ok := scalarType(v); ok {
		e.u32(uint32(t))
		e.scalar(v)
		return nil
	}
	switch x := v.(type) {
	case string:
		e.u32(uint32(TypeString))
		e.str(x)
	case []string:
		e.u32(uint32(TypeArray))
		e.u32(uint32(TypeString))
		e.u64(uint64(len(x)))
		for _, s := range x {
			e.str(s)
		}
	default:
		return e.array(key, v)
	}
	return nil
}

func (e *encoder) array(key string, v any) error {
	var t ValueType
	var elems []any
	switch x := v.(type) {
	case []uint8:
		t, elems = TypeUint8, anys(x)
	case []int8:
		t, elems = TypeInt8, anys(x)
	case []bool:
		t, elems = TypeBool, anys(x)
	case []uint16:
		t, elems = TypeUint16, anys(x)
	case []int16:
		t, elems = TypeInt16, anys(x)
	case []uint32:
		t, elems = TypeUint32, anys(x)
	case []int32:
		t, elems = TypeInt32, anys(x)
	case []float32:
		t, elems = TypeFloat32, anys(x)
	case []uint64:
		t, elems = TypeUint64, anys(x)
	case []int64:
		t, elems = TypeInt64, anys(x)
	case []float64:
		t, elems = TypeFloat64, anys(x)
	default:
		return fmt.Errorf("gguf: %s: unsupported value type %T", key, v)
	}
	e.u32(uint32(TypeArray))
	e.u32(uint32(t))
	e.u64(uint64(len(elems)))
	for _, x := range elems {
		e.scalar(x)
	}
	return nil
}

func anys[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func scalarType(v any) (ValueType, bool) {
	switch v.(type) {
	case uint8:
		return TypeUint8, true
	case int8:
		return TypeInt8, true
	case bool:
		return TypeBool, true
	case uint16:
		return TypeUint16, true
	case int16:
		return TypeInt16, true
	case uint32:
		return TypeUint32, true
	case int32:
		return TypeInt32, true
	case float32:
		return TypeFloat32, true
	case uint64:
		return TypeUint64, true
	case int64:
		return TypeInt64, true
	case float64:
		return TypeFloat64, true
	}
	return 0, false
}

func (e *encoder) scalar(v any) {
	le := binary.LittleEndian
	switch x := v.(type) {
	case uint8:
		e.bytes([]byte{x})
	case int8:
		e.bytes([]byte{byte(x)})
	case bool:
		b := byte(0)
		if x {
			b = 1
		}
		e.bytes([]byte{b})
	case uint16:
		e.bytes(le.AppendUint16(nil, x))
	case int16:
		e.bytes(le.AppendUint16(nil, uint16(x)))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	}
}

// F32Bytes encodes float32 values as little-endian tensor data.
func F32Bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
