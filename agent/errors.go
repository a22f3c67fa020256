package agent

import (
	"errors"
	"fmt"
)

// Code classifies why a tool call failed or a turn ended early. The values
// are part of offgrid's interface: they appear in tool results the model
// reads, in --json events and in the benchmark.
type Code int

const (
	// ToolNotFound: the model called a tool that does not exist.
	ToolNotFound Code = 500
	// ToolExecutionFailed: the tool ran and failed (a missing file, a
	// command that exited non-zero, a refused permission).
	ToolExecutionFailed Code = 501
	// InvalidToolSignature: the call's arguments are not a JSON object or
	// break the tool's schema.
	InvalidToolSignature Code = 502
	// ToolRetriesExhausted: the model failed the same call again after
	// the allowed retries; the turn ends.
	ToolRetriesExhausted Code = 503
	// ToolLoopLimitReached: the turn reached its iteration or tool-call
	// limit; the turn ends.
	ToolLoopLimitReached Code = 504
)

// String returns the code's name, e.g. "ToolNotFound".
func (c Code) String() string {
	switch c {
	case 0:
		return "OK"
	case ToolNotFound:
		return "ToolNotFound"
	case ToolExecutionFailed:
		return "ToolExecutionFailed"
	case InvalidToolSignature:
		return "InvalidToolSignature"
	case ToolRetriesExhausted:
		return "ToolRetriesExhausted"
	case ToolLoopLimitReached:
		return "ToolLoopLimitReached"
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Error is a failure with a Code. A turn that ends on a limit returns one
// in Turn.Stop; errors.Is matches an *Error of the same code.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.Code, int(e.Code), e.Message) }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrToolNotFound         = &Error{Code: ToolNotFound}
	ErrToolExecutionFailed  = &Error{Code: ToolExecutionFailed}
	ErrInvalidToolSignature = &Error{Code: InvalidToolSignature}
	ErrToolRetriesExhausted = &Error{Code: ToolRetriesExhausted}
	ErrToolLoopLimitReached = &Error{Code: ToolLoopLimitReached}
)

// ErrTemplate is wrapped by chat-template failures: a template that does
// not parse, fails to render, or calls raise_exception.
var ErrTemplate = errors.New("agent: chat template")

// ErrInterrupted is returned by Agent.Send when its context is cancelled
// during the turn; the history keeps what happened up to that point.
var ErrInterrupted = errors.New("agent: interrupted")
