package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// ErrorType classifies a failed tool call on the wire, so a model (and a
// benchmark) can tell a bad call from a broken tool.
type ErrorType string

const (
	TypeNone             ErrorType = "none"              // the call succeeded
	TypeNotFound         ErrorType = "not_found"         // unknown tool, missing file or task
	TypeValidationFailed ErrorType = "validation_failed" // arguments break the schema or the tool's rules
	TypePermissionDenied ErrorType = "permission_denied" // refused by the sandbox or the user
	TypeIO               ErrorType = "io_error"          // the file system or a command failed
	TypeParse            ErrorType = "parse_error"       // arguments are not a JSON object
	TypeInternal         ErrorType = "internal_error"    // the tool panicked or misbehaved
)

// Result is the outcome of one tool call in the wire format the model sees:
//
//	{"success":bool,"data":string|null,"error_message":string|null,
//	 "error_type":"none|not_found|...","metadata":{"execution_time_ms":int,
//	 "data_size_bytes":int,"timestamp":int}}
//
// Data is nil when the tool produced no output (always on failure, except
// for partial output such as a timed-out command's); ErrorMessage is nil on
// success.
type Result struct {
	Success      bool      `json:"success"`
	Data         *string   `json:"data"`
	ErrorMessage *string   `json:"error_message"`
	ErrorType    ErrorType `json:"error_type"`
	Metadata     Metadata  `json:"metadata"`
}

// Metadata describes a call's cost.
type Metadata struct {
	// ExecutionTimeMS is the wall time of the call in milliseconds,
	// validation included.
	ExecutionTimeMS int64 `json:"execution_time_ms"`
	// DataSizeBytes is the length of Data as returned (after truncation).
	DataSizeBytes int `json:"data_size_bytes"`
	// Timestamp is when the call finished, in Unix milliseconds.
	Timestamp int64 `json:"timestamp"`
}

// OK returns a successful Result carrying data.
func OK(data string) Result {
	return Result{Success: true, Data: &data, ErrorType: TypeNone,
		Metadata: Metadata{DataSizeBytes: len(data), Timestamp: time.Now().UnixMilli()}}
}

// Fail returns a failed Result of the given type.
func Fail(typ ErrorType, message string) Result {
	return Result{ErrorMessage: &message, ErrorType: typ,
		Metadata: Metadata{Timestamp: time.Now().UnixMilli()}}
}

// Text returns Data, or "" when it is null.
func (r Result) Text() string {
	if r.Data == nil {
		return ""
	}
	return *r.Data
}

// Message returns ErrorMessage, or "" when it is null.
func (r Result) Message() string {
	if r.ErrorMessage == nil {
		return ""
	}
	return *r.ErrorMessage
}

// MarshalJSON writes the wire format; a zero ErrorType is written as "none"
// on success and "internal_error" on failure, so the field is always valid.
func (r Result) MarshalJSON() ([]byte, error) {
	type wire Result
	w := wire(r)
	if w.ErrorType == "" {
		w.ErrorType = TypeNone
		if !w.Success {
			w.ErrorType = TypeInternal
		}
	}
	return json.Marshal(w)
}

// JSON returns the wire format as one line of JSON: the content of the tool
// message the model reads.
func (r Result) JSON() []byte {
	b, err := json.Marshal(r)
	if err != nil { // cannot happen: every field marshals
		return []byte(`{"success":false,"data":null,"error_message":"unencodable result","error_type":"internal_error","metadata":{"execution_time_ms":0,"data_size_bytes":0,"timestamp":0}}`)
	}
	return b
}

// Compact is the result as a model reads it best: the data on success
// ("done" when there is none), "error_type: message" on failure; no
// metadata.
func (r Result) Compact() string {
	if r.Success {
		if t := r.Text(); t != "" {
			return t
		}
		return "done (no output)"
	}
	typ := r.ErrorType
	if typ == "" || typ == TypeNone {
		typ = TypeInternal
	}
	return string(typ) + ": " + r.Message()
}

// String returns the wire JSON as a string.
func (r Result) String() string { return string(r.JSON()) }

// Error is a tool failure that carries its wire ErrorType. Tools return it
// (see [Errorf]) when the type cannot be inferred from the error chain.
type Error struct {
	Type ErrorType
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf formats an error of the given wire type; %w wraps as in fmt.Errorf.
func Errorf(typ ErrorType, format string, args ...any) error {
	return &Error{Type: typ, Err: fmt.Errorf(format, args...)}
}

// ErrOutsideRoot is wrapped by errors for paths the sandbox refuses.
var ErrOutsideRoot = errors.New("path is outside the working directory")

// TypeOf classifies err for the wire: an [*Error] keeps its type; sandbox
// refusals and fs.ErrPermission are permission_denied; fs.ErrNotExist is
// not_found; other file-system errors are io_error; anything else is
// internal_error.
func TypeOf(err error) ErrorType {
	var te *Error
	var pe *fs.PathError
	switch {
	case err == nil:
		return TypeNone
	case errors.As(err, &te):
		return te.Type
	case errors.Is(err, ErrOutsideRoot), errors.Is(err, fs.ErrPermission):
		return TypePermissionDenied
	case errors.Is(err, fs.ErrNotExist):
		return TypeNotFound
	case errors.As(err, &pe):
		return TypeIO
	default:
		return TypeInternal
	}
}
