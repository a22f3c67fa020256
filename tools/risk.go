package tools

import (
	"fmt"
	"strings"
)

// Risk says how much harm a tool call can do, and so whether the user is
// asked before it runs. The levels are ordered: Safe < Medium < High.
type Risk int

const (
	// Safe tools only read harmless state (the time, a directory listing);
	// they run without asking.
	Safe Risk = iota
	// Medium tools read file contents; they run after the user agrees.
	Medium
	// High tools change files or run commands; they run after the user
	// agrees, with a warning.
	High
)

var riskNames = [...]string{Safe: "safe", Medium: "medium", High: "high"}

// String returns "safe", "medium" or "high".
func (r Risk) String() string {
	if r < 0 || int(r) >= len(riskNames) {
		return fmt.Sprintf("Risk(%d)", int(r))
	}
	return riskNames[r]
}

// ParseRisk parses "safe", "medium" or "high" (any case).
func ParseRisk(s string) (Risk, error) {
	for i, n := range riskNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Risk(i), nil
		}
	}
	return 0, fmt.Errorf("unknown risk level %q: want safe, medium or high", s)
}

// MarshalText implements [encoding.TextMarshaler].
func (r Risk) MarshalText() ([]byte, error) {
	if r < 0 || int(r) >= len(riskNames) {
		return nil, fmt.Errorf("invalid risk level %d", int(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler].
func (r *Risk) UnmarshalText(b []byte) error {
	v, err := ParseRisk(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}
