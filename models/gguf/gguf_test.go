package gguf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/offgrid-ai/offgrid/models/gguf"
)

func sample(t testing.TB) []byte {
	t.Helper()
	kvs := []gguf.KV{
		{Key: "general.architecture", Value: "llama"},
		{Key: "u8", Value: uint8(7)}, {Key: "i8", Value: int8(-7)},
		{Key: "u16", Value: uint16(700)}, {Key: "i16", Value: int16(-700)},
		{Key: "u32", Value: uint32(70000)}, {Key: "i32", Value: int32(-70000)},
		{Key: "f32", Value: float32(1.5)}, {Key: "bool", Value: true},
		{Key: "u64", Value: uint64(1 << 40)}, {Key: "i64", Value: int64(-1 << 40)},
		{Key: "f64", Value: 2.25}, {Key: "str", Value: "héllo"},
		{Key: "strs", Value: []string{"a", "", "ü"}},
		{Key: "i32s", Value: []int32{1, -2, 3}}, {Key: "f32s", Value: []float32{0.5}},
		{Key: "bools", Value: []bool{true, false}}, {Key: "u8s", Value: []uint8{}},
	}
	ts := []gguf.Tensor{
		{Name: "a", Dims: []uint64{3}, Type: gguf.F32, Data: gguf.F32Bytes([]float32{1, 2, 3})},
		{Name: "b", Dims: []uint64{32, 2}, Type: gguf.Q8_0, Data: make([]byte, 2*34)},
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, kvs, ts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	b := sample(t)
	f, err := gguf.Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"u8": uint8(7), "i8": int8(-7), "u16": uint16(700), "i16": int16(-700),
		"u32": uint32(70000), "i32": int32(-70000), "f32": float32(1.5), "bool": true,
		"u64": uint64(1 << 40), "i64": int64(-1 << 40), "f64": 2.25, "str": "héllo",
		"strs": []string{"a", "", "ü"}, "i32s": []int32{1, -2, 3}, "f32s": []float32{0.5},
		"bools": []bool{true, false}, "u8s": []uint8{},
	}
	for k, v := range want {
		got, ok := f.Get(k)
		if !ok || !reflect.DeepEqual(got, v) {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	if f.KV[0].Key != "general.architecture" || f.Architecture() != "llama" {
		t.Errorf("order or architecture lost: %v", f.KV[0])
	}
	if n, _ := f.ArrayLen("strs"); n != 3 {
		t.Errorf("ArrayLen = %d", n)
	}
	if len(f.Tensors) != 2 || f.Tensors[1].Size != 68 || f.Tensors[1].Offset%gguf.DefaultAlignment != 0 {
		t.Fatalf("tensors = %+v", f.Tensors)
	}
	if f.ParamCount() != 67 {
		t.Errorf("ParamCount = %d, want 67", f.ParamCount())
	}
	data := b[f.DataOffset+int64(f.Tensors[0].Offset):][:12]
	if binary.LittleEndian.Uint32(data[4:]) != 0x40000000 { // float32(2)
		t.Errorf("tensor a data = %x", data)
	}
}

// Every prefix of a valid file that cuts into its tensor data is an
// error, never a panic. (Padding after the last tensor is optional.)
func TestTruncated(t *testing.T) {
	b := sample(t)
	f, err := gguf.Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	last := f.Tensors[len(f.Tensors)-1]
	end := f.DataOffset + int64(last.Offset+last.Size)
	for n := range int(end) {
		if _, err := gguf.Read(bytes.NewReader(b[:n]), int64(n)); !errors.Is(err, gguf.ErrFormat) {
			t.Fatalf("prefix of %d bytes: err = %v, want ErrFormat", n, err)
		}
	}
}

func TestHostile(t *testing.T) {
	le := binary.LittleEndian
	header := func(version uint32, tensors, kvs uint64) []byte {
		b := []byte("GGUF")
		b = le.AppendUint32(b, version)
		b = le.AppendUint64(b, tensors)
		return le.AppendUint64(b, kvs)
	}
	str := func(b []byte, s string) []byte { return append(le.AppendUint64(b, uint64(len(s))), s...) }
	kv := func(key string, typ uint32, rest ...byte) []byte {
		b := str(header(3, 0, 1), key)
		return append(le.AppendUint32(b, typ), rest...)
	}
	tensor := func(dims []uint64, typ uint32, off uint64) []byte {
		b := str(header(3, 1, 0), "t")
		b = le.AppendUint32(b, uint32(len(dims)))
		for _, d := range dims {
			b = le.AppendUint64(b, d)
		}
		b = le.AppendUint32(b, typ)
		b = le.AppendUint64(b, off)
		return append(b, make([]byte, 64)...)
	}
	cases := map[string][]byte{
		"empty":             nil,
		"bad magic":         []byte("GGML\x03\x00\x00\x00"),
		"version 1":         header(1, 0, 0),
		"version 4":         header(4, 0, 0),
		"absurd tensors":    header(3, 1<<62, 0),
		"absurd kvs":        header(3, 0, 1<<40),
		"huge key":          le.AppendUint64(header(3, 0, 1), 1<<50),
		"empty key":         kv("", uint32(gguf.TypeUint8), 1),
		"unknown type":      kv("k", 99, 0, 0, 0, 0),
		"huge string":       kv("k", uint32(gguf.TypeString), le.AppendUint64(nil, 1<<60)...),
		"huge array":        kv("k", uint32(gguf.TypeArray), append(le.AppendUint32(nil, uint32(gguf.TypeUint32)), le.AppendUint64(nil, 1<<60)...)...),
		"nested array":      kv("k", uint32(gguf.TypeArray), append(le.AppendUint32(nil, uint32(gguf.TypeArray)), le.AppendUint64(nil, 1)...)...),
		"bad alignment":     kv("general.alignment", uint32(gguf.TypeUint32), 3, 0, 0, 0),
		"zero dims":         tensor(nil, 0, 0),
		"five dims":         tensor([]uint64{1, 1, 1, 1, 1}, 0, 0),
		"zero dim":          tensor([]uint64{0}, 0, 0),
		"overflowing dims":  tensor([]uint64{1 << 40, 1 << 40}, 0, 0),
		"unknown tensor":    tensor([]uint64{4}, 77, 0),
		"partial block":     tensor([]uint64{16}, uint32(gguf.Q4_0), 0),
		"data past the end": tensor([]uint64{1 << 20}, 0, 0),
		"unaligned offset":  tensor([]uint64{1}, 0, 3),
	}
	dup := str(header(3, 0, 2), "k")
	dup = append(le.AppendUint32(dup, uint32(gguf.TypeUint8)), 1)
	dup = str(dup, "k")
	cases["duplicate key"] = append(le.AppendUint32(dup, uint32(gguf.TypeUint8)), 1)
	for name, b := range cases {
		if _, err := gguf.Read(bytes.NewReader(b), int64(len(b))); !errors.Is(err, gguf.ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", name, err)
		}
	}
}

func TestWriteRejects(t *testing.T) {
	for name, ts := range map[string][]gguf.Tensor{
		"short data":   {{Name: "a", Dims: []uint64{4}, Type: gguf.F32, Data: make([]byte, 8)}},
		"no dims":      {{Name: "a", Type: gguf.F32}},
		"partial blck": {{Name: "a", Dims: []uint64{16}, Type: gguf.Q4_0, Data: make([]byte, 9)}},
	} {
		if err := gguf.Write(new(bytes.Buffer), nil, ts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := gguf.Write(new(bytes.Buffer), []gguf.KV{{Key: "x", Value: struct{}{}}}, nil); err == nil {
		t.Error("unsupported value type: no error")
	}
}

func FuzzRead(f *testing.F) {
	f.Add(sample(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		gf, err := gguf.Read(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			if !errors.Is(err, gguf.ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		for _, ti := range gf.Tensors {
			if gf.DataOffset+int64(ti.Offset)+int64(ti.Size) > int64(len(b)) {
				t.Fatalf("tensor %q extends past the end", ti.Name)
			}
		}
	})
}
