package agent

import (
	"context"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
)

// choose has the model reply to msgs with one of choices, under a
// grammar, and returns it; "" when the reply is not one of them. Every
// message but the last is the same for every choice of its kind (the
// instructions, the examples), so that their KV state is cached. The
// assists' questions to the model are such choices: the file a request
// is about (locate), the new file it names (chooseFile), whether a new
// file comes from one not read (fromUnread), whether a table answers
// (tableFilter), the query of a table (queryTable), the line a change is
// at and its edit (editLine).
func (a *Agent) choose(ctx context.Context, turn *Turn, on func(Event), msgs []Message, choices []string) (string, error) {
	longest := 0
	for _, c := range choices {
		longest = max(longest, len(c))
	}
	comp, err := a.complete(ctx, turn, on, CompletionRequest{
		Messages:   msgs,
		Format:     a.opts.Format,
		ToolChoice: grammar.None,
		Choices:    choices,
		MaxTokens:  longest + 8, // a token is at least a byte
		Fixed:      len(msgs) - 1,
		Stream:     func(string) {},
	})
	if err != nil {
		return "", err
	}
	if c := strings.TrimSpace(comp.Content); slices.Contains(choices, c) {
		return c, nil
	}
	return "", nil
}
