//go:build cgo

package launch

import (
	"context"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/tools"
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
		o.Mentions = func(request string) []tools.Mention { return tools.Mentioned(root, request) }
		o.Files = func(ctx context.Context, max int) ([]string, bool, error) { return tools.Files(ctx, root, max) }
	}
	return o
}
