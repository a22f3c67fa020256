package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestAgentClockAnswer: the answer of a turn that read the clock begins
// with its date in the request's language, and the model continues it;
// its own answer, written before it saw that date, is not kept.
func TestAgentClockAnswer(t *testing.T) {
	saturday := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	clock := hermes(call(clockTool, `{}`))
	for _, tc := range []struct {
		name, request string
		on            bool
		replies       []string
		want          string
	}{
		{"Spanish", "¿Qué día de la semana es hoy? Tengo que encargar café.", true,
			[]string{clock, "Hoy es lunes.", "Hoy es sábado."}, "sábado, 28 de noviembre de 2026 (2026-11-28), 09:30 UTC.\n\nHoy es sábado."},
		{"Chinese", "今天星期几？", true,
			[]string{clock, "今天是星期五。", "今天是星期六。"}, "2026年11月28日 星期六 (2026-11-28), 09:30 UTC.\n\n今天是星期六。"},
		{"English by default", "day?", true,
			[]string{clock, "It is a Sunday.", "It is Saturday."}, "Saturday, 28 November 2026 (2026-11-28), 09:30 UTC.\n\nIt is Saturday."},
		{"a zone ahead of UTC", "Welcher Wochentag ist heute? Ich muss den Plan schreiben.", true,
			[]string{clock, "Heute ist Montag.", "Heute ist Samstag."}, "Samstag, 28. November 2026 (2026-11-28), 10:30 UTC+01:00.\n\nHeute ist Samstag."},
		{"off", "¿Qué día de la semana es hoy? Tengo que encargar café.", false,
			[]string{clock, "Hoy es lunes."}, "Hoy es lunes."},
		{"a weekday the request names", "¿Qué día de la semana es hoy? Tengo que encargar café antes del lunes.", true,
			[]string{"Hoy es lunes."}, "Hoy es lunes."},
		{"a weekday from nowhere: the clock read", "今天星期几？我想安排一下这周的家务。", true,
			[]string{"今天是星期五。", "今天是星期六。"}, "2026年11月28日 星期六 (2026-11-28), 09:30 UTC.\n\n今天是星期六。"},
		{"a weekday from nowhere, off", "今天星期几？我想安排一下这周的家务。", false,
			[]string{"今天是星期五。"}, "今天是星期五。"},
		{"no weekday", "今天星期几？", true,
			[]string{"我不知道。"}, "我不知道。"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			now := saturday
			if strings.Contains(tc.name, "zone") {
				now = saturday.In(time.FixedZone("CET", 3600))
			}
			reg, err := tools.Builtin(dir, tools.WithClock(func() time.Time { return now }))
			if err != nil {
				t.Fatal(err)
			}
			eng := &fakeEngine{t: t, replies: tc.replies}
			a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil,
				Options{ClockAnswer: tc.on, Answer: AnswerSeparate})
			if err != nil {
				t.Fatal(err)
			}
			var streamed strings.Builder
			turn, err := a.Send(context.Background(), tc.request, func(e Event) {
				if e.Type == EventToken {
					streamed.WriteString(e.Text)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if turn.Content != tc.want {
				t.Fatalf("answer %q, want %q", turn.Content, tc.want)
			}
			// A reply written after the model read the clock, before the
			// date, is not streamed. (One that names a weekday from
			// nowhere is, before offgrid reads the clock: the answer
			// written again follows it.)
			if tc.on && len(turn.Calls) > 0 && !turn.Calls[0].ByAgent && streamed.Len() > 0 {
				t.Errorf("streamed %q", streamed.String())
			}
			if strings.Contains(tc.name, "the clock read") && (len(turn.Calls) != 1 || !turn.Calls[0].ByAgent || turn.Calls[0].Name != clockTool) {
				t.Errorf("calls %+v, want offgrid's read of the clock", turn.Calls)
			}
			if eng.calls != len(tc.replies) {
				t.Errorf("%d replies of %d", eng.calls, len(tc.replies))
			}
			if tc.on && len(turn.Calls) > 0 {
				date, _, _ := strings.Cut(tc.want, "\n")
				if last := eng.prompts[len(eng.prompts)-1]; !strings.HasSuffix(strings.TrimSpace(last), date) {
					t.Errorf("the answer's prompt does not end with %q:\n%s", date, last)
				}
			}
		})
	}
}
