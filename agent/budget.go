package agent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/tools"
)

// The token budget.
//
// Before each reply the agent measures the rendered prompt with the
// model's tokenizer against the context window (the engine's Size) less
// the reply budget (MaxTokens, or a quarter of the window when there is
// no cap; never more than half the window). Two rules keep every prompt
// inside:
//
//   - A tool result is fitted when it arrives: it may take at most half of
//     the tokens that remain once the prompt so far and the reply budget
//     are counted (shared equally when a reply made several calls). A
//     longer result is cut on a line boundary and ends with a note the
//     model can act on; the ToolRecord's Cut says by how much.
//   - When the prompt no longer fits, the conversation is compacted: tool
//     results of earlier turns are replaced by their one-line summary,
//     oldest first; then the oldest turns are removed; then, as a last
//     resort, older results of the current turn are summarised. The
//     system prompt and the tool definitions are never touched. Compaction
//     goes down to three quarters of the room, so that it happens rarely
//     and the prefix of the prompt, which the engine keeps in its KV
//     cache, stays stable between compactions. Before new results are
//     added, the same compaction makes a quarter of the window free if it
//     can. A result that finds no room at all makes the next reply an
//     answer in text.

// sizer is an Engine that knows its context window; *inference.Context
// is one.
type sizer interface{ Size() int }

// Window returns the context window of the Completer's engine in tokens;
// 0 means unknown (no budget is kept).
func (c *Completer) Window() int {
	if s, ok := c.eng.(sizer); ok {
		return s.Size()
	}
	return 0
}

// PromptTokens renders req and counts its tokens as Complete would.
func (c *Completer) PromptTokens(req CompletionRequest) (int, error) {
	p, err := c.prompt(req)
	if err != nil {
		return 0, err
	}
	return c.countPrompt(p.text)
}

func (c *Completer) countPrompt(text string) (int, error) {
	addSpecial := c.info.BOS == "" || !strings.HasPrefix(text, c.info.BOS)
	toks, err := c.eng.Tokenize(text, addSpecial, true)
	if err != nil {
		return 0, fmt.Errorf("agent: tokenize prompt: %w", err)
	}
	return len(toks), nil
}

// countText counts the tokens of a piece of a message.
func (c *Completer) countText(text string) (int, error) {
	toks, err := c.eng.Tokenize(text, false, false)
	if err != nil {
		return 0, fmt.Errorf("agent: tokenize: %w", err)
	}
	return len(toks), nil
}

// replyBudget is the part of a window kept for the reply.
func replyBudget(window, maxTokens int) int {
	r := maxTokens
	if r <= 0 {
		r = window / 4
	}
	return min(r, window/2)
}

// Cut tells how a tool result was shortened for the model (the user and
// --json events get the whole result).
type Cut struct {
	// Lines and TotalLines count the lines shown and the lines of the
	// whole output.
	Lines      int `json:"lines"`
	TotalLines int `json:"total_lines"`
	// Bytes and TotalBytes count the same in bytes.
	Bytes      int `json:"bytes"`
	TotalBytes int `json:"total_bytes"`
	// Tokens is the most the result could take; Note is what the model
	// was told.
	Tokens int    `json:"tokens"`
	Note   string `json:"note"`
}

// String is a short account for the user, e.g. "120 of 3,000 lines".
func (c *Cut) String() string {
	if c.Bytes == 0 {
		return fmt.Sprintf("none of %s lines (no room left)", thousands(c.TotalLines))
	}
	if c.Lines == 0 {
		return fmt.Sprintf("%s of %s bytes", thousands(c.Bytes), thousands(c.TotalBytes))
	}
	return fmt.Sprintf("%s of %s lines", thousands(c.Lines), thousands(c.TotalLines))
}

// fitter cuts one text to a number of tokens.
type fitter struct {
	count  func(string) (int, error)
	render func(data string) string // the text as the model reads it
	note   func(shown, total int, partial bool) string
}

// fit returns the longest prefix of data (whole lines, or part of the
// first line when not even one fits) that, with its note and as
// rendered, takes at most limit tokens, and how it was cut; cut is nil
// when data fits whole. Lines are found by binary search on their
// number, each probe tokenizing only a prefix, so a huge output is never
// tokenized whole.
func (f fitter) fit(data string, limit int) (out string, cut *Cut, err error) {
	ends := lineEnds(data)
	total := len(ends)
	fits := func(text string) (bool, error) {
		n, err := f.count(f.render(text))
		return n <= limit, err
	}
	with := func(n int) string {
		if n == total {
			return data
		}
		return data[:lineEnd(ends, n)] + f.note(n, total, false)
	}
	// An upper bound for the search: lines within a generous number of
	// bytes per token, grown while it still fits.
	lo, hi := 0, total // lo fits (or is 0), hi is the first known not to
	for bytes := max(limit, 1) * 8; ; bytes *= 2 {
		n := linesWithin(ends, bytes)
		ok, err := fits(with(n))
		if err != nil {
			return "", nil, err
		}
		if !ok {
			hi = n
			break
		}
		lo = n
		if n == total {
			return data, nil, nil
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := fits(with(mid))
		if err != nil {
			return "", nil, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	cut = &Cut{Lines: lo, TotalLines: total, TotalBytes: len(data), Tokens: limit}
	if lo > 0 {
		out = with(lo)
		cut.Bytes = lineEnd(ends, lo)
		cut.Note = f.note(lo, total, false)
		return out, cut, nil
	}
	// Not one line fits: part of the first, cut on a rune boundary.
	first := data[:ends[0]]
	note := f.note(0, total, true)
	b, e := 0, len(first)
	for e-b > 1 {
		mid := b + (e-b)/2
		for mid > b && !utf8.RuneStart(first[mid]) {
			mid--
		}
		if mid == b {
			break
		}
		ok, err := fits(first[:mid] + note)
		if err != nil {
			return "", nil, err
		}
		if ok {
			b = mid
		} else {
			e = mid
		}
	}
	if b == 0 { // no room at all
		note = noRoom(total)
	}
	cut.Bytes, cut.Note = b, note
	return first[:b] + note, cut, nil
}

// noRoom is the note that replaces a result when the window has no room
// left for any of it.
func noRoom(lines int) string {
	return fmt.Sprintf("[output of %s lines not shown: the context window has no room left for it; answer with what you have]\n", thousands(lines))
}

// lineEnds returns the end offset (after the "\n") of each line of s; a
// last line without a newline ends at len(s).
func lineEnds(s string) []int {
	ends := make([]int, 0, strings.Count(s, "\n")+1)
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			ends = append(ends, len(s))
			break
		}
		i += j + 1
		ends = append(ends, i)
	}
	return ends
}

// lineEnd is the end offset of the first n lines.
func lineEnd(ends []int, n int) int {
	if n == 0 {
		return 0
	}
	return ends[n-1]
}

// linesWithin is how many whole lines fit in n bytes.
func linesWithin(ends []int, n int) int {
	lo, hi := 0, len(ends)
	for lo < hi {
		mid := (lo + hi) / 2
		if ends[mid] <= n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// stoppedOf matches read_file's note on a long read, which gives the
// file's line count.
var stoppedOf = regexp.MustCompile(`^\[stopped at line \d+ of (\d+) `)

// lineNumber returns the number of a read_file line, or 0.
func lineNumber(line string) int {
	n, _, _ := tools.NumberedLine(strings.TrimSuffix(line, "\n"))
	return n
}

// cutNote returns the note that ends a result cut for the model. For
// read_file it names the lines shown and the offset to continue from;
// for other tools it counts the lines.
func cutNote(tool, data string, ends []int) func(shown, total int, partial bool) string {
	if tool == "read_file" && len(ends) > 0 {
		first := lineNumber(data[:ends[0]])
		// The last numbered line, and the file's line count if known
		// (-1: the tool stopped early). The tool's own note may follow.
		last, of := 0, 0
		for i := len(ends) - 1; i >= 0 && i >= len(ends)-3; i-- {
			start := 0
			if i > 0 {
				start = ends[i-1]
			}
			line := data[start:ends[i]]
			if n := lineNumber(line); n > 0 {
				last = n
				if of == 0 && i == len(ends)-1 {
					of = n // read to the end
				}
				break
			}
			if m := stoppedOf.FindStringSubmatch(line); m != nil {
				of, _ = strconv.Atoi(m[1])
			} else if of == 0 {
				of = -1 // stopped early, total unknown
			}
		}
		if first > 0 && last > 0 {
			return func(shown, total int, partial bool) string {
				if partial || shown == 0 {
					return fmt.Sprintf("\n[line %d is too long to show whole; only its start is shown. Use grep_search to find what you need in it]\n", first)
				}
				prev := 0
				if shown > 0 {
					start := 0
					if shown > 1 {
						start = ends[shown-2]
					}
					prev = lineNumber(data[start:ends[shown-1]])
				}
				if prev == 0 { // the window ended on a tool note
					prev = last
				}
				ofText := ""
				if of > 0 {
					ofText = " of " + thousands(of)
				}
				return fmt.Sprintf("[showing lines %s–%s%s; call read_file with offset=%d to continue, or answer from these lines]\n",
					thousands(first), thousands(prev), ofText, prev+1)
			}
		}
	}
	return func(shown, total int, partial bool) string {
		if partial || shown == 0 {
			return fmt.Sprintf("\n[output cut: only the start of line 1 of %s lines shown]\n", thousands(total))
		}
		return fmt.Sprintf("[output cut: %s of %s lines shown; answer from these, or narrow the request]\n", thousands(shown), thousands(total))
	}
}

// fitResult fits a tool result to limit tokens as the model reads it. It
// returns the result to show the model and, when it was cut, how.
func (a *Agent) fitResult(tool string, r tools.Result, limit int) (tools.Result, *Cut, error) {
	data, onData := r.Text(), r.Data != nil
	if !onData {
		data = r.Message()
	}
	set := func(r tools.Result, s string) tools.Result {
		if onData {
			r.Data = &s
		} else {
			r.ErrorMessage = &s
		}
		return r
	}
	f := fitter{
		count:  a.c.countText,
		render: func(s string) string { return a.modelResult(set(r, s)) },
		note:   cutNote(tool, data, lineEnds(data)),
	}
	out, cut, err := f.fit(data, max(limit, 0))
	if err != nil || cut == nil {
		return r, nil, err
	}
	return set(r, out), cut, nil
}

// thousands writes n with comma separators: 56789 → "56,789".
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
