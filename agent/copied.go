package agent

import (
	"regexp"
	"strings"

	"github.com/offgrid-ai/offgrid/tools"
)

// A copied answer repeats what a tool returned instead of answering:
// asked which port a service listens on, the 0.5B wrote out the README
// it was shown. AnswerAgain asks for such an answer again; the
// benchmark counts them (bench's TaskResult.Copied).

// minCopied is the fewest lines of a tool result an answer must repeat,
// making at least half of its lines, to count as copied.
const minCopied = 5

// Copied reports whether answer is mostly lines of results: at least
// minCopied of its lines, and at least half of its non-blank ones, are
// lines of a result, compared without their line numbers ("12: text"
// as read_file shows a line, "12. text" as a model renumbers it) and
// surrounding space.
func Copied(answer string, results []string) bool {
	seen := map[string]bool{}
	for _, r := range results {
		for _, l := range strings.Split(r, "\n") {
			if k := copyKey(l); k != "" {
				seen[k] = true
			}
		}
	}
	lines, same := 0, 0
	for _, l := range strings.Split(answer, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines++
		if k := copyKey(l); k != "" && seen[k] {
			same++
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

// ReadResults returns what the calls that change nothing (tools of reg
// below High risk: reads, searches, listings) returned, what an answer
// may copy; a change's result, the lines it wrote, is what an answer
// reports.
func ReadResults(reg *tools.Registry, calls []ToolRecord) []string {
	var out []string
	for _, r := range calls {
		if t, ok := reg.Lookup(r.Name); ok && t.Risk < tools.High && r.OK() {
			out = append(out, r.Result.Text())
		}
	}
	return out
}
