package offgrid

import (
	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

// An AgentOption configures Model.Agent.
type AgentOption func(*agentConfig)

type agentConfig struct {
	system     string
	events     func(Event)
	perm       permission.Config
	permSet    bool // WithPermissions was given
	prompter   permission.Prompter
	profile    string
	assist     string
	toolChoice string
	seed       *uint32
	template   string
	temp       *float32
}

// WithSystem sets the system prompt.
func WithSystem(prompt string) AgentOption { return func(c *agentConfig) { c.system = prompt } }

// WithEvents calls fn with each event of a turn as it happens: streamed
// text, tool calls and their results, the final answer. These are the
// events `offgrid run --json` prints.
func WithEvents(fn func(Event)) AgentOption { return func(c *agentConfig) { c.events = fn } }

// WithPermissions decides which tool calls run. By default the tools up
// to medium risk run: your Func tools and the built-in tools that list,
// read and search (confined to Builtin's root); the ones that change
// files or run commands (high risk) are refused, as there is nobody to
// ask. permission.Config{AllowAll: true} runs everything, a zero Config
// only the safe tools; WithPrompter asks.
func WithPermissions(cfg permission.Config) AgentOption {
	return func(c *agentConfig) { c.perm = cfg; c.permSet = true }
}

// WithPrompter asks p about calls the permissions leave open.
func WithPrompter(p permission.Prompter) AgentOption {
	return func(c *agentConfig) { c.prompter = p; c.perm.Interactive = p != nil }
}

// WithProfile drives the model with a named agent profile or a profile
// file instead of its own (see `offgrid run --profile`).
func WithProfile(nameOrFile string) AgentOption {
	return func(c *agentConfig) { c.profile = nameOrFile }
}

// WithAssists edits the profile's assists as `offgrid run --assist` does:
// "NAME,…" replaces them, "+NAME" adds one, "-NAME" removes one, "none".
func WithAssists(spec string) AgentOption { return func(c *agentConfig) { c.assist = spec } }

// WithToolChoice is auto (the model answers or calls), required (it calls
// a tool first) or none (it cannot call tools).
func WithToolChoice(choice string) AgentOption { return func(c *agentConfig) { c.toolChoice = choice } }

// WithChatTemplate replaces the model's chat template with a Jinja
// template of your own (vetted as the model's is).
func WithChatTemplate(jinja string) AgentOption { return func(c *agentConfig) { c.template = jinja } }

// WithSeed seeds the sampler, for reproducible answers.
func WithSeed(seed uint32) AgentOption { return func(c *agentConfig) { c.seed = &seed } }

// WithTemperature sets the sampling temperature over the profile's (0:
// the most likely token each time).
func WithTemperature(t float32) AgentOption { return func(c *agentConfig) { c.temp = &t } }

func (c *agentConfig) policy() (agent.Policy, error) {
	if !c.permSet {
		c.perm.MaxRisk = tools.Medium
	}
	return permission.New(c.perm)
}
