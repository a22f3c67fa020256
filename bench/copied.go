package bench

import (
	"regexp"
	"strings"
)

// A copied answer repeats what a tool returned instead of answering:
// asked which port a service listens on, the 0.5B wrote out the README
// it was shown. Such an answer may hold the figure asked for, and so
// pass its checks; TaskResult.Copied counts it apart.

// minCopied is the fewest lines of a tool result an answer must repeat,
// making at least half of its lines, to count as copied.
const minCopied = 5

// copied reports whether answer is mostly lines of the results: at
// least minCopied of its lines, and at least half of its non-blank
// ones, are lines of a result, compared without their line numbers
// ("12: text" as read_file shows a line, "12. text" as a model
// renumbers it) and surrounding space.
func copied(answer string, results []string) bool {
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

// lineNumber matches the number a line is shown with: "12: ", "12. ".
var lineNumber = regexp.MustCompile(`^\s*\d+[:.] ?`)

// copyKey is the text of a line as copied compares it: without its
// number and surrounding space; "" for a line too short to tell a copy
// by (a blank line, a lone brace).
func copyKey(l string) string {
	k := strings.TrimSpace(lineNumber.ReplaceAllString(l, ""))
	if len(k) < 4 {
		return ""
	}
	return k
}
