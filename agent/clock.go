package agent

import (
	"cmp"
	"fmt"
	"slices"
	"time"

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
