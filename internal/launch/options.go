//go:build cgo

package launch

import (
	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/inference"
)

// offgrid's defaults for an agent's turn, the command line's and the
// library's.
const (
	DefaultMaxTokens     = 1024 // per reply
	DefaultMaxIterations = 10   // rounds of tool calls per message
	DefaultMaxToolCalls  = 15   // per reply
)

// Options returns the agent options offgrid starts from, before a
// profile applies: the default sampling and limits, and, when root is
// not "", the files under root for the assists that look at the files a
// request names.
func Options(root string) agent.Options {
	o := agent.Options{
		Sampling:  inference.DefaultSampling(),
		MaxTokens: DefaultMaxTokens,
		Limits:    agent.Limits{MaxIterations: DefaultMaxIterations, MaxToolCalls: DefaultMaxToolCalls},
	}
	if root != "" {
		o.LookIn(root)
	}
	return o
}
