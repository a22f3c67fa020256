package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// PlainAnswer: a question that offgrid or the model searched the files
// for, and whose turn only searched and read files, is answered from
// their lines as a person would show them: the lines the search found as
// "path: text", each file read as its text, under one sentence, and the
// request as the user wrote it. The answer prompt otherwise shows every
// call with its arguments (the search words the model chose), read_file's
// line numbers, and the request with what the assists added to it, so
// the lines come twice. Shown that, the 0.5B answered questions about a
// number with a bare line number ("1" for an electricity meter's 04812
// kWh) and German questions with its own search words
// ("Mehrwertsteuersatz Pipeline price"); shown the lines plain, it
// answered both in the user's language, and copied a file out instead
// of answering 5 times in 75 dev questions, against 11.
//
// A turn without a search (a file the request names, read first) keeps
// the usual prompt: asked "What does notes.txt say?", the 0.5B shown the
// file plain left its last line out, and on the dev split such questions
// gained nothing.

// plainIntro heads the lines of a plain answer's prompt.
const plainIntro = "Answer the user's question from these lines of the user's files:"

// plainAnswer returns the answer prompt of the turn that began at
// history[start] with its results plain (Options.PlainAnswer), and
// whether it applies: a call searched (grep_search), every call searched
// or read a file (read_file) and succeeded, every search found lines,
// and the prompt fits the window with room for the reply.
func (a *Agent) plainAnswer(start int, turn Turn) ([]Message, bool) {
	if !a.opts.PlainAnswer || len(turn.Calls) == 0 {
		return nil, false
	}
	if !slices.ContainsFunc(turn.Calls, func(c ToolRecord) bool { return c.Name == searchTool }) {
		return nil, false
	}
	var b strings.Builder
	b.WriteString(plainIntro)
	for i, c := range turn.Calls {
		if !c.OK() || c.Denied {
			return nil, false
		}
		text := a.modelResult(c.Result)
		switch {
		case widened(turn.Calls, i):
			continue // offgrid's search of the tables, which found nothing
		case c.Name == searchTool:
			b.WriteString("\n")
			found := false
			for _, l := range strings.Split(text, "\n") {
				if m := grepLine.FindStringSubmatchIndex(l); m != nil {
					fmt.Fprintf(&b, "\n%s: %s", l[m[2]:m[3]], l[m[1]:])
					found = true
				}
			}
			if !found {
				return nil, false // the usual prompt says that nothing was found
			}
		case c.Name == readFileTool:
			fmt.Fprintf(&b, "\n\nThe file %s:\n%s", c.argPath(), strings.TrimRight(plainRead(text), "\n"))
		default:
			return nil, false
		}
	}
	if a.unchanged(turn) {
		b.WriteString("\n\n" + unchangedInstruction)
	}
	msgs := answerConversation(a.history[:start], b.String(), turn.request)
	if window := a.c.Window(); window > 0 {
		n, err := a.c.PromptTokens(CompletionRequest{Messages: msgs, Format: a.opts.Format, ToolChoice: grammar.None})
		if err != nil || n+replyBudget(window, a.opts.MaxTokens) > window {
			return nil, false // the usual prompt, its results fitted
		}
	}
	return msgs, true
}

// plainRead returns a read_file result without its line numbers when it
// shows a whole file (tools.Unnumbered), a table's figures kept after
// it; a part of a file keeps them, as a question may be about a line's
// number ("What is on line 2999 of big.txt?").
func plainRead(result string) string {
	body, table := tools.SplitTableNote(result)
	lines, ok := tools.Unnumbered(body)
	if !ok {
		return result
	}
	return strings.Join(lines, "\n") + "\n" + table
}
