package agent

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/inference"
)

// A small model decoding greedily can fall into a loop: the same lines,
// or the same few words, again and again until the token limit. The 0.5B
// wrote a German meeting note's one paragraph six times, so its file was
// never closed and never written, and answered "64.5 + 64.5 + …". A
// reply in text stops where it starts to repeat itself and keeps one
// copy (Completer.Complete; CompletionRequest.Repeats turns it off).

// StopRepetition is the Completion.StopReason of a reply stopped because
// it repeated itself; its text ends with the first copy.
const StopRepetition inference.StopReason = "repetition"

const (
	loopCopies  = 3  // copies of a block of lines that make a loop
	loopBlock   = 16 // the most lines in such a block
	loopMinText = 24 // the fewest non-space bytes in a block: not "}" or a blank line
	runCopies   = 8  // copies of a run of characters within a line that make a loop
	runMaxUnit  = 64 // the longest such run, in bytes
	runMinText  = 96 // the fewest bytes the copies cover
)

// listNumber is the number of an ordered list's item, which a loop of
// items counts on ("5. Restart", "7. Restart").
var listNumber = regexp.MustCompile(`^(\s*)\d+[.)]\s`)

// repetition returns the length of text to keep and true when text ends
// in a loop: loopCopies copies of a block of whole lines (their list
// numbers aside), or runCopies copies of a run of characters within the
// last line. What is kept ends with the loop's first copy.
func repetition(text string) (int, bool) {
	if n, ok := repeatedLines(text); ok {
		return n, true
	}
	return repeatedRun(text)
}

// repeatedLines finds a loop of whole lines (see repetition).
func repeatedLines(text string) (int, bool) {
	end := strings.LastIndexByte(text, '\n')
	if end < 0 {
		return 0, false
	}
	// The last lines that could hold a loop, each with where it starts.
	var lines []string
	var starts []int
	for i := end; i >= 0 && len(lines) < (loopCopies+1)*loopBlock; {
		j := strings.LastIndexByte(text[:i], '\n') + 1
		lines = append(lines, listNumber.ReplaceAllString(text[j:i], "$1#. "))
		starts = append(starts, j)
		i = j - 1
	}
	// Back into reading order.
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
		starts[i], starts[j] = starts[j], starts[i]
	}
	n := len(lines)
	for b := 1; b <= loopBlock && loopCopies*b <= n; b++ {
		if !cycles(lines, n-loopCopies*b, b) || weight(lines[n-b:]) < loopMinText {
			continue
		}
		s := n - loopCopies*b
		for s > 0 && lines[s-1] == lines[s-1+b] {
			s-- // the loop began earlier, within a block
		}
		return starts[s+b], true
	}
	return 0, false
}

// cycles reports whether lines from s on are copies of lines[s:s+b].
func cycles(lines []string, s, b int) bool {
	for i := s + b; i < len(lines); i++ {
		if lines[i] != lines[i-b] {
			return false
		}
	}
	return true
}

// weight is the number of bytes of lines that are not spaces.
func weight(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(strings.Join(strings.Fields(l), ""))
	}
	return n
}

// repeatedRun finds a loop of characters within the last line (see
// repetition).
func repeatedRun(text string) (int, bool) {
	line := strings.LastIndexByte(text, '\n') + 1
	for p := 1; p <= runMaxUnit; p++ {
		k := 1 // copies of the last p bytes
		for len(text)-(k+1)*p >= line && text[len(text)-(k+1)*p:len(text)-k*p] == text[len(text)-p:] {
			k++
		}
		if k < runCopies || k*p < runMinText || !strings.ContainsFunc(text[len(text)-p:], isWordRune) {
			continue
		}
		// One copy as the tail gives it, back to a space within it: the
		// reply may have stopped within a word.
		s := len(text) - k*p
		keep := s + p
		if i := strings.LastIndexAny(text[s:keep], " \t"); i > 0 {
			keep = s + i + 1
		}
		for keep > 0 && keep < len(text) && !utf8.RuneStart(text[keep]) {
			keep--
		}
		return keep, true
	}
	return 0, false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// looping is repetition for a reply as it grows by a piece: its whole
// lines change only when the piece holds a line break (lines).
func looping(text string, lines bool) (int, bool) {
	if lines {
		return repetition(text)
	}
	return repeatedRun(text)
}
