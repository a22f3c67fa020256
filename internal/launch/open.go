//go:build cgo

package launch

import (
	"context"
	"fmt"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/tools"
)

// Model is a loaded model and where it came from.
type Model struct {
	*inference.Model
	Ref  Ref
	Info agent.ModelInfo
	env  Env
}

// Open resolves ref (see Lookup) and loads the model.
func Open(ctx context.Context, env Env, ref string, opts inference.ModelOptions) (*Model, error) {
	r, err := Lookup(ctx, env, ref)
	if err != nil {
		return nil, err
	}
	m, err := inference.Load(r.Path, opts)
	if err != nil {
		return nil, StoredModelError(env, r, err)
	}
	return &Model{Model: m, Ref: r, Info: agent.InfoFromModel(m), env: env}, nil
}

// Config is what an agent over a Model is started with.
type Config struct {
	// Options are the agent's options before the profile applies.
	Options  agent.Options
	Settings Settings
	// ContextSize is the requested window (0: the model's trained
	// context); it is raised when the tool definitions need it.
	ContextSize int
	// Threads decode the model (0: the engine's default).
	Threads int
	// BatchSize is the tokens decoded at once (0: the engine's default).
	BatchSize int
	// ChatTemplate, if set, is a Jinja chat template that replaces the
	// model's own (it is vetted as the model's is).
	ChatTemplate string
	// NoPromptCache neither loads nor saves the prompt cache.
	NoPromptCache bool
	Tools         *tools.Registry
	Policy        agent.Policy
	Prompter      permission.Prompter
}

// Session is an agent with the context it runs in.
type Session struct {
	Agent   *agent.Agent
	Context *inference.Context
	Profile agent.Profile
	// SHA256 is the model's hash, when known (for the curator's cache).
	SHA256 string
}

// Close frees the context.
func (s *Session) Close() { s.Context.Close() }

// Start creates a context on m and an agent over cfg.Tools, driven by the
// model's profile with cfg.Settings over it.
func (m *Model) Start(cfg Config) (*Session, error) {
	info := m.Info
	if cfg.ChatTemplate != "" {
		info.Template = cfg.ChatTemplate
		if err := agent.VetTemplate(info); err != nil {
			return nil, fmt.Errorf("the chat template given cannot be used: %w", err)
		}
	}
	profile, err := ProfileFor(m.env, cfg.Settings, m.Ref.Path, info)
	if err != nil {
		return nil, err
	}
	opts, err := cfg.Settings.Apply(cfg.Options, profile)
	if err != nil {
		return nil, err
	}
	window, err := ContextWindow(m.Model, cfg.ContextSize, cfg.Tools, &opts, m.env.log())
	if err != nil {
		return nil, err
	}
	mc, err := m.NewContext(inference.ContextOptions{ContextSize: window, BatchSize: cfg.BatchSize, Threads: cfg.Threads})
	if err != nil {
		return nil, err
	}
	sha := m.Ref.SHA256
	if !cfg.NoPromptCache {
		sha = UsePromptCache(m.env, mc, m.Ref.Path, sha)
	}
	ag, err := agent.New(agent.NewCompleter(mc, info), cfg.Tools, cfg.Policy, cfg.Prompter, opts)
	if err != nil {
		mc.Close()
		return nil, err
	}
	return &Session{Agent: ag, Context: mc, Profile: profile, SHA256: sha}, nil
}
