package main

import (
	"bytes"
	"testing"

	"github.com/offgrid-ai/offgrid/agent"
)

// TestEventPrinterFinal: where the streamed reply cannot be swapped for
// the final answer (not a terminal), what the final answer has that the
// reply had not is written after it.
func TestEventPrinterFinal(t *testing.T) {
	for _, tc := range []struct {
		name, streamed, final, want string
	}{
		{"as streamed", "Four notes.", "Four notes.", "Four notes.\n"},
		{"names added", "Four notes.", "Four notes.\n\nmeetings/: a.md, b.md", "Four notes.\n\nmeetings/: a.md, b.md\n"},
		{"changed", "Hoy es lunes.", "sábado, 28 de noviembre de 2026.\n\nHoy es sábado.", "Hoy es lunes.\n\nsábado, 28 de noviembre de 2026.\n\nHoy es sábado.\n"},
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
