package agent

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/offgrid-ai/offgrid/grammar"
)

// Warm decodes the prompt heads that a conversation's first request can
// start with, the system prompt and tool definitions of each tool set
// the request may be offered (and, when the model chooses what a request
// needs, the heads of that choice's prompt), so that a context with a
// prefix cache (inference.Context.SetPrefixCache) saves them and the
// first request of a later process loads them instead of decoding
// them. Each head is followed by a one-token reply. The conversation is
// left as it was.
func (a *Agent) Warm(ctx context.Context) error {
	if len(a.history) > a.systemLen() {
		return errors.New("agent: Warm: the conversation has started")
	}
	on := func(Event) {}
	a.refreshTools(on)
	a.walked = walk{}
	saved := a.topics
	defer func() { a.topics = saved; a.offer() }()

	var reqs []CompletionRequest
	if a.opts.ToolChoice != grammar.None && len(a.defs) > 0 && (a.opts.ToolsByTopic || a.opts.Rewrite || a.opts.ReadAnswer || a.opts.Locate || a.opts.SearchFirst) {
		if opts := a.intentOptions(); len(opts) >= 2 {
			folder, _ := a.folderOverview(ctx)
			msgs, labels := intentMessages(opts, folder, "A")
			req := CompletionRequest{Messages: msgs, Format: a.opts.Format, ToolChoice: grammar.None, Fixed: len(msgs) - 1, Stream: func(string) {}}
			if !a.opts.NoGrammar {
				req.Choices = labels
			}
			reqs = append(reqs, req)
		}
	}
	if a.opts.SearchFirst && a.opts.ToolChoice != grammar.None {
		msgs := searchMessages("A")
		reqs = append(reqs, CompletionRequest{Messages: msgs, Format: a.opts.Format, ToolChoice: grammar.None, Fixed: len(msgs) - 1, Stream: func(string) {}})
		if a.opts.FilesLanguage && !a.opts.NoGrammar {
			msgs := filesLanguageMessages("A")
			reqs = append(reqs, CompletionRequest{Messages: msgs, Format: a.opts.Format, ToolChoice: grammar.None, Choices: filesLanguages, Fixed: len(msgs) - 1, Stream: func(string) {}})
		}
	}
	// The tool sets: every tool, and with ToolsByTopic those of each
	// topic alone and of none.
	sets := []map[string]bool{nil}
	if a.opts.ToolsByTopic {
		all := map[string]bool{}
		sets = append(sets, map[string]bool{})
		for _, t := range a.reg.Tools() {
			if t.Topic != "" && !all[t.Topic] {
				all[t.Topic] = true
				sets = append(sets, map[string]bool{t.Topic: true})
			}
		}
		sets[0] = all
	}
	for _, set := range sets {
		a.topics = maps.Clone(set)
		a.offer()
		req := a.request(a.opts.ToolChoice, false)
		req.Messages = append(slices.Clone(a.history), Message{Role: RoleUser, Content: "A"})
		reqs = append(reqs, req)
	}
	var turn Turn
	for _, req := range reqs {
		req.MaxTokens = 1
		req.Stream = func(string) {}
		if _, err := a.complete(ctx, &turn, on, req); err != nil && !errors.Is(err, ErrInterrupted) {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// systemLen is how many messages of the history are the system prompt.
func (a *Agent) systemLen() int {
	if len(a.history) > 0 && a.history[0].Role == RoleSystem {
		return 1
	}
	return 0
}
