package gguf

import "fmt"

// ValueType is the type tag of a metadata value.
type ValueType uint32

// Metadata value types, as numbered by the GGUF specification.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

var valueTypeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64", "int64", "float64"}

func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// size is the encoded size of a fixed-size scalar, 0 for strings and arrays.
func (t ValueType) size() int64 {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// TensorType is a ggml tensor element type (quantization).
type TensorType uint32

// Tensor types, as numbered by ggml.
const (
	F32     TensorType = 0
	F16     TensorType = 1
	Q4_0    TensorType = 2
	Q4_1    TensorType = 3
	Q5_0    TensorType = 6
	Q5_1    TensorType = 7
	Q8_0    TensorType = 8
	Q8_1    TensorType = 9
	Q2_K    TensorType = 10
	Q3_K    TensorType = 11
	Q4_K    TensorType = 12
	Q5_K    TensorType = 13
	Q6_K    TensorType = 14
	Q8_K    TensorType = 15
	IQ2_XXS TensorType = 16
	IQ2_XS  TensorType = 17
	IQ3_XXS TensorType = 18
	IQ1_S   TensorType = 19
	IQ4_NL  TensorType = 20
	IQ3_S   TensorType = 21
	IQ2_S   TensorType = 22
	IQ4_XS  TensorType = 23
	I8      TensorType = 24
	I16     TensorType = 25
	I32     TensorType = 26
	I64     TensorType = 27
	F64     TensorType = 28
	IQ1_M   TensorType = 29
	BF16    TensorType = 30
	TQ1_0   TensorType = 34
	TQ2_0   TensorType = 35
	MXFP4   TensorType = 39
)

// typeInfo is the block layout of a tensor type: elements per block and
// bytes per block.
type typeInfo struct {
	name      string
	blockSize int64
	typeSize  int64
}

var tensorTypes = map[TensorType]typeInfo{
	F32: {"F32", 1, 4}, F16: {"F16", 1, 2}, BF16: {"BF16", 1, 2}, F64: {"F64", 1, 8},
	I8: {"I8", 1, 1}, I16: {"I16", 1, 2}, I32: {"I32", 1, 4}, I64: {"I64", 1, 8},
	Q4_0: {"Q4_0", 32, 18}, Q4_1: {"Q4_1", 32, 20}, Q5_0: {"Q5_0", 32, 22}, Q5_1: {"Q5_1", 32, 24},
	Q8_0: {"Q8_0", 32, 34}, Q8_1: {"Q8_1", 32, 36},
	Q2_K: {"Q2_K", 256, 84}, Q3_K: {"Q3_K", 256, 110}, Q4_K: {"Q4_K", 256, 144},
	Q5_K: {"Q5_K", 256, 176}, Q6_K: {"Q6_K", 256, 210}, Q8_K: {"Q8_K", 256, 292},
	IQ2_XXS: {"IQ2_XXS", 256, 66}, IQ2_XS: {"IQ2_XS", 256, 74}, IQ3_XXS: {"IQ3_XXS", 256, 98},
	IQ1_S: {"IQ1_S", 256, 50}, IQ4_NL: {"IQ4_NL", 32, 18}, IQ3_S: {"IQ3_S", 256, 110},
	IQ2_S: {"IQ2_S", 256, 82}, IQ4_XS: {"IQ4_XS", 256, 136}, IQ1_M: {"IQ1_M", 256, 56},
	TQ1_0: {"TQ1_0", 256, 54}, TQ2_0: {"TQ2_0", 256, 66}, MXFP4: {"MXFP4", 32, 17},
}

func (t TensorType) String() string {
	if ti, ok := tensorTypes[t]; ok {
		return ti.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// Known reports whether t is a tensor type this package can size.
func (t TensorType) Known() bool { _, ok := tensorTypes[t]; return ok }

// FileType names the general.file_type values llama.cpp writes (the
// model's predominant quantization).
func FileType(v uint32) string {
	names := map[uint32]string{
		0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
		10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M",
		16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S",
		22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M",
		28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0",
		37: "TQ2_0", 38: "MXFP4_MOE",
	}
	if n, ok := names[v]; ok {
		return n
	}
	return fmt.Sprintf("file_type(%d)", v)
}
