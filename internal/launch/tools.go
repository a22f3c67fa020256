//go:build cgo

package launch

import (
	"os"

	"github.com/offgrid-ai/offgrid/tools"
)

// BuiltinTools returns the built-in tools confined to root ("" is the
// current directory), the bash tool confining its commands with the
// running executable re-run as the sandbox helper (internal/sandbox
// serves it from init in any program that imports the tools).
func BuiltinTools(root string, opts ...tools.BuiltinOption) (*tools.Registry, error) {
	if root == "" {
		root = "."
	}
	return tools.Builtin(root, append(opts, Confinement()...)...)
}

// Confinement has the bash tool confine its commands with the running
// executable re-run as the sandbox helper.
func Confinement() []tools.BuiltinOption {
	exe, err := os.Executable()
	if err != nil {
		return nil // bash is then unconfined, and says so
	}
	return []tools.BuiltinOption{tools.WithConfinement(exe)}
}
