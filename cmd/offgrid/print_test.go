package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestEventPrinterFinal: where the streamed reply cannot be swapped for
// the final answer (an answer taller than the terminal), what the final
// answer has that the reply had not is written after it; an answer
// offgrid changed follows a line that says it replaces the reply.
func TestEventPrinterFinal(t *testing.T) {
	for _, tc := range []struct {
		name, streamed, final, want string
	}{
		{"as streamed", "Four notes.", "Four notes.", "Four notes.\n"},
		{"names added", "Four notes.", "Four notes.\n\nmeetings/: a.md, b.md", "Four notes.\n\nmeetings/: a.md, b.md\n"},
		{"changed", "Hoy es lunes.", "sábado, 28 de noviembre de 2026.\n\nHoy es sábado.", "Hoy es lunes.\n\n" + withdrawn + "\n\nsábado, 28 de noviembre de 2026.\n\nHoy es sábado.\n"},
		{"nothing streamed", "", "Done.", "Done.\n"},
		{"trailing space only", "Done.\n", "Done.", "Done.\n"},
	} {
		var out bytes.Buffer
		p := &eventPrinter{out: &out, errw: &bytes.Buffer{}}
		if tc.streamed != "" {
			p.event(agent.Event{Type: agent.EventToken, Text: tc.streamed})
		}
		p.event(agent.Event{Type: agent.EventFinal, Text: tc.final})
		if got := out.String(); got != tc.want {
			t.Errorf("%s: printed %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestEventPrinterHold: output that is not a terminal gets the final
// answer alone, never the reply's raw text: a line the answer dropped (a
// number no tool returned) is not written, nor is a reply no answer
// follows. The calls and their results go to stderr.
func TestEventPrinterHold(t *testing.T) {
	rec := &agent.ToolRecord{Name: "read_file", Result: tools.OK("Butter: Hof Meier")}
	for _, tc := range []struct {
		name             string
		events           []agent.Event
		want, wantStderr string
	}{
		{"answer checked", []agent.Event{
			{Type: agent.EventToken, Text: "Call Hof Meier at 077 888 9999."},
			{Type: agent.EventFinal, Text: "No file gives Hof Meier's number."},
		}, "No file gives Hof Meier's number.\n", ""},
		{"reply before a call", []agent.Event{
			{Type: agent.EventToken, Text: "It is 077 888 9999, let me check."},
			{Type: agent.EventToolCall, Tool: "read_file", Arguments: json.RawMessage(`{"path":"suppliers.md"}`)},
			{Type: agent.EventToolResult, Record: rec},
			{Type: agent.EventToken, Text: "Hof Meier."},
			{Type: agent.EventFinal, Text: "Hof Meier."},
		}, "Hof Meier.\n", "→ read_file {\"path\":\"suppliers.md\"}\n" + rec.Status() + " read_file (0 ms): " + rec.Summary() + "\n"},
		{"interrupted", []agent.Event{
			{Type: agent.EventToken, Text: "The number is 077"},
			{Type: agent.EventError, Text: "interrupted"},
		}, "", "(interrupted)\n"},
	} {
		var out, errw bytes.Buffer
		p := &eventPrinter{out: &out, errw: &errw, hold: true}
		for _, e := range tc.events {
			p.event(e)
		}
		if got := out.String(); got != tc.want {
			t.Errorf("%s: printed %q, want %q", tc.name, got, tc.want)
		}
		if got := errw.String(); got != tc.wantStderr {
			t.Errorf("%s: stderr %q, want %q", tc.name, got, tc.wantStderr)
		}
	}
}
