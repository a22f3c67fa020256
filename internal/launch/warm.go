//go:build cgo

package launch

import (
	"context"
	"os"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/inference"
)

// Warm fills the prompt cache of the model ref names for the agent
// `offgrid run` starts on it with its defaults (the built-in tools, the
// model's profile, the default window): the first request of a later run
// then loads the system prompt and tool definitions instead of decoding
// them (see agent.Agent.Warm).
func Warm(ctx context.Context, env Env, ref string, threads int) error {
	m, err := Open(ctx, env, ref, inference.ModelOptions{})
	if err != nil {
		return err
	}
	defer m.Close()
	root, err := os.MkdirTemp("", "offgrid-warm")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	reg, err := BuiltinTools(root)
	if err != nil {
		return err
	}
	policy, err := permission.New(permission.Config{})
	if err != nil {
		return err
	}
	s, err := m.Start(Config{Options: Options(root), ContextSize: DefaultContextSize, Threads: threads, Tools: reg, Policy: policy})
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Agent.Warm(ctx)
}
