package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/internal/calendar"
	"github.com/offgrid-ai/offgrid/internal/language"
	"github.com/offgrid-ai/offgrid/tools"
)

// Clock answers (Options.ClockAnswer): the answer of a turn that read
// the computer's clock begins with the date as written in the request's
// language (language.Detect; English when it cannot tell), the weekday
// and month named by offgrid (calendar.Date), and the model continues.
// Given "Saturday, 28 November 2026", the 0.5B answered "Hoy es lunes.",
// "今天是星期五。" and, in English, "it is a Sunday". Asked under a grammar
// which language a request is in, it called English and Chinese
// requests French.

// clockTool is the built-in tool that reads the clock.
const clockTool = "get_current_time"

// clockTime returns the time the turn's last clock call that succeeded
// returned, and false when there is none.
func clockTime(calls []ToolRecord) (time.Time, bool) {
	for _, r := range slices.Backward(calls) {
		if r.Name == clockTool && r.OK() && r.Result.Data != nil {
			if t, ok := tools.ParseClock(*r.Result.Data); ok {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// clockAnswer reports whether the turn's answer begins with the clock's
// date (clockNote): the assist is on, the turn read the clock, and no
// failure or change is to be told first (answerNote).
func (a *Agent) clockAnswer(turn Turn) bool {
	if !a.opts.ClockAnswer {
		return false
	}
	_, ok := clockTime(turn.Calls)
	return ok && a.answerNote(turn) == ""
}

// clockNote returns the date and time the turn's clock call returned, as
// written in the request's language, for the answer to begin with
// ("sábado, 28 de noviembre de 2026 (2026-11-28), 09:33 UTC."), the
// date in ISO 8601 too, which some ask for; "" when clockAnswer says no.
func (a *Agent) clockNote(turn Turn) string {
	if !a.clockAnswer(turn) {
		return ""
	}
	t, _ := clockTime(turn.Calls)
	date, _ := calendar.Date(cmp.Or(language.Detect(turn.request), "en"), t)
	zone, _ := t.Zone()
	if zone == "" { // parsed from an offset: "UTC+01:00"
		zone = "UTC" + t.Format("-07:00")
	}
	return fmt.Sprintf("%s (%s), %s %s.\n\n", date, t.Format(time.DateOnly), t.Format("15:04"), zone)
}

// An answer that names a weekday nothing of the conversation names, in
// any language (calendar.Weekdays), was not read from the clock: the
// 0.5B, sent to the task list by "今天星期几？我想安排一下这周的家务。",
// answered "今天是星期五。" from an empty list, and to the files by
// "今日は何曜日ですか？", "今日は日曜日です。" from a changelog. With
// ClockAnswer, offgrid then reads the clock itself (readClock) and the
// answer is written again from its date.

// unfoundedDay reports whether answer names a weekday that neither the
// turn's request and results nor an earlier message names.
func (a *Agent) unfoundedDay(turn Turn, answer string) bool {
	days := calendar.Weekdays(answer)
	if len(days) == 0 {
		return false
	}
	var known strings.Builder
	known.WriteString(turn.request)
	for _, m := range a.history {
		known.WriteString("\n" + m.Content)
	}
	for _, r := range turn.Calls {
		known.WriteString("\n" + r.Result.Text())
	}
	named := calendar.Weekdays(known.String())
	return slices.ContainsFunc(days, func(d time.Weekday) bool { return !slices.Contains(named, d) })
}

// readClock reads the clock for the turn, as offgrid's own call, when
// the answer names a weekday that nothing of the conversation names
// (unfoundedDay) and the turn has not read the clock; it reports whether
// the clock's time is now among the turn's results, for the answer to be
// written again from it (clockNote).
func (a *Agent) readClock(ctx context.Context, turn *Turn, answer string, on func(Event)) (bool, error) {
	if !a.opts.ClockAnswer {
		return false, nil
	}
	if _, ok := clockTime(turn.Calls); ok || !a.unfoundedDay(*turn, answer) {
		return false, nil
	}
	if _, ok := a.reg.Lookup(clockTool); !ok {
		return false, nil
	}
	calls := a.assignIDs([]grammar.Call{{Name: clockTool, Arguments: json.RawMessage(`{}`)}})
	on(Event{Type: EventToolCall, ID: calls[0].ID, Tool: clockTool, Arguments: argsOrEmpty(calls[0].Arguments), ByAgent: true})
	if _, _, _, err := a.runCalls(ctx, NewExecutor(a.reg, a.policy, a.opts.Limits), turn, repeatGuard{}, calls, true, on); err != nil {
		return false, err
	}
	_, ok := clockTime(turn.Calls)
	return ok && a.clockAnswer(*turn), nil
}
