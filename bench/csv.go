package bench

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// WriteAgentCSV writes one row per task of every run, with a header: the
// run, the task and its outcome, for a spreadsheet or a notebook.
func WriteAgentCSV(w io.Writer, runs []AgentRun) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"model", "profile", "mode", "grammar", "results", "seed", "task", "category", "split", "lang", "group",
		"pass", "fabricated", "rounds", "calls", "invalid_calls", "prompt_tokens", "generated_tokens", "seconds", "error", "repeat", "copied", "answer_shown", "need"})
	for _, r := range runs {
		for _, t := range r.Tasks {
			cw.Write([]string{r.Model, r.Profile, r.Mode, r.Grammar, r.Results, fmt.Sprint(r.Seed), t.ID, t.Category, t.Split, t.Lang, t.Group,
				strconv.FormatBool(t.Pass), strconv.FormatBool(t.Fabricated), fmt.Sprint(t.Rounds), fmt.Sprint(len(t.Calls)), fmt.Sprint(t.Invalid),
				fmt.Sprint(t.PromptTokens), fmt.Sprint(t.Generated), strconv.FormatFloat(t.Seconds, 'f', 3, 64), t.Error, fmt.Sprint(t.Repeat), strconv.FormatBool(t.Copied), optBool(t.AnswerShown), t.Need})
		}
	}
	cw.Flush()
	return cw.Error()
}

// optBool is "true" or "false", or empty for nil.
func optBool(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

// WriteCSV writes one row per BFCL case of every run, with a header.
func WriteCSV(w io.Writer, runs []Run) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"runner", "model", "grammar", "tool_format", "seed", "case", "category",
		"parse_valid", "schema_valid", "correct_function", "valid", "error_type", "latency_s", "prompt_tokens", "generated_tokens", "error", "repeat"})
	for _, r := range runs {
		for _, c := range r.Cases {
			cw.Write([]string{r.Runner, r.Model, r.Grammar, r.ToolFormat, fmt.Sprint(r.Seed), c.ID, c.Category,
				strconv.FormatBool(c.ParseValid), strconv.FormatBool(c.SchemaValid), strconv.FormatBool(c.CorrectFunction),
				strconv.FormatBool(c.Verdict.Valid), c.Verdict.ErrorType, strconv.FormatFloat(c.LatencySeconds, 'f', 3, 64),
				fmt.Sprint(c.PromptTokens), fmt.Sprint(c.GeneratedTokens), c.Error, fmt.Sprint(c.Repeat)})
		}
	}
	cw.Flush()
	return cw.Error()
}
