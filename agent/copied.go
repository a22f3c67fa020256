package agent

import (
	"regexp"
	"strings"

	"github.com/offgrid-ai/offgrid/tools"
)

// A copied answer repeats what a tool returned instead of answering:
// asked which port a service listens on, the 0.5B wrote out the README
// it was shown. Such an answer may hold the figure asked for; the
// benchmark counts it apart (bench's TaskResult.Copied).

// minCopied is the fewest lines of a tool result an answer must repeat,
// making at least half of its lines, to count as copied.
const minCopied = 5

// Copied reports whether answer, the answer to a turn that made calls
// (with the tools of reg), is mostly lines that its reads returned
// (calls of tools below High risk: reads, searches, listings): at least
// minCopied of its lines, and at least half of them, are lines of such
// a result, compared without their line numbers ("12: text" as
// read_file shows a line, "12. text" as a model renumbers it) and
// surrounding space. Lines too short to tell (blank, a lone brace, a
// bare number) and lines a change's result shows (the lines it wrote and
// their neighbours, which the answer to a change reports) count neither
// way.
func Copied(reg *tools.Registry, calls []ToolRecord, answer string) bool {
	read, changed := map[string]bool{}, map[string]bool{}
	for _, r := range calls {
		if _, ok := reg.Lookup(r.Name); !ok || !r.OK() {
			continue
		}
		into := read
		if changes(reg, r.Name) {
			into = changed
		}
		for _, l := range strings.Split(r.Result.Text(), "\n") {
			if k := copyKey(l); k != "" {
				into[k] = true
			}
		}
	}
	lines, same := 0, 0
	for _, l := range strings.Split(answer, "\n") {
		k := copyKey(l)
		switch {
		case k == "" || changed[k]:
		case read[k]:
			lines++
			same++
		default:
			lines++
		}
	}
	return same >= minCopied && 2*same >= lines
}

// shownNumber matches the number a line is shown with: "12: ", "12. ".
var shownNumber = regexp.MustCompile(`^\s*\d+[:.] ?`)

// copyKey is the text of a line as Copied compares it: without its
// number and surrounding space; "" for a line too short to tell a copy
// by (a blank line, a lone brace).
func copyKey(l string) string {
	k := strings.TrimSpace(shownNumber.ReplaceAllString(l, ""))
	if len(k) < 4 {
		return ""
	}
	return k
}
