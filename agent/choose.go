package agent

import (
	"context"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
)

// fewShot returns a prompt of instructions (system), then each example as
// an earlier turn, the user's message and the model's reply that turn
// gives for it, then the user's message last. All but the last message
// are the same for every prompt of its kind, so that their KV state is
// cached (CompletionRequest.Fixed): the assists' choices are put so.
func fewShot[E any](system string, examples []E, turn func(E) (user, reply string), last string) []Message {
	msgs := make([]Message, 0, 2*len(examples)+2)
	msgs = append(msgs, Message{Role: RoleSystem, Content: system})
	for _, ex := range examples {
		user, reply := turn(ex)
		msgs = append(msgs, Message{Role: RoleUser, Content: user}, Message{Role: RoleAssistant, Content: reply})
	}
	return append(msgs, Message{Role: RoleUser, Content: last})
}

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
