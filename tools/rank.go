package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/offgrid-ai/offgrid/internal/words"
)

// Ranked lines: a grep_search pattern of several words that no line
// holds as written ("pump decision", "port listen service") is answered
// with the lines that hold the most of its words, each word weighted by
// its rarity across the files searched (inverse document frequency),
// the pattern's first words a little more. A
// word matches the words of a line as words.Form.Matches says: whole, as a
// part of an identifier, as the start of a longer word, or as the end of
// a compound ("Straße" of "Lindenstraße"). A line holds
// the words of its file's path too: "shakshuka typo" is about
// recipes/shakshuka.md more than about a journal entry that names the
// dish, and "README Windows" about the README's line on Windows more
// than about a release guide that names both. A table's row (CSV, TSV,
// Markdown) holds its header's words: "zone A water" is about the row
// "2024-06-01,A,8.5" under "date,zone,water_l"; a configuration line,
// the keys it is under ("fan pin" is about "pin: 24" under "fan:"). On
// the general suite's dev split, the file of the best line was the one
// the task needed for 11 of 35 of the model's searches without the
// path, 18 with it.
// Common words weigh next to nothing in any language, with no list of
// them; words no file holds weigh nothing.

// Bounds of a ranked search: the lines shown, the lines shown of one file,
// the candidate lines kept while reading, and the bytes read.
const (
	maxRanked        = 10
	maxRankedPerFile = 4
	maxCandidates    = 20000
	maxRankBytes     = 32 << 20
)

// matchAll matches every line.
var matchAll = regexp.MustCompile("")

// rankTerms returns the distinct terms of a pattern (words.Terms: "P-104"
// is one) as search keys (words.Key), without accents (words.Fold, as the
// lines' words), ("*" is a gap between words), or nil for a pattern of
// fewer than two terms.
func rankTerms(pattern string) []string {
	var ts []string
	for _, w := range words.Terms(words.Fold(strings.ReplaceAll(pattern, "*", " "))) {
		if k := words.Key(w); k != "" && !slices.Contains(ts, k) {
			ts = append(ts, k)
		}
	}
	if len(ts) < 2 {
		return nil
	}
	return ts
}

// rankLines returns the lines of the files matching filter that hold the
// most of the pattern's words, best first, with notes on what was not
// read; nil for a pattern of fewer than two words.
func (f *fileTools) rankLines(ctx context.Context, a grepArgs, filter string, baseOnly bool) ([]grepMatch, []string, error) {
	terms := rankTerms(a.Pattern)
	if terms == nil {
		return nil, nil, nil
	}
	type candidate struct {
		grepMatch
		has []bool // which terms the line holds
	}
	var cands []candidate
	df := make([]int, len(terms)) // files holding each term
	files, read := 0, int64(0)
	var notes []string
	errStop := errors.New("stop")
	_, walkErr := f.walkFiles(ctx, a.IncludeHidden, a.IgnoreGitignore, func(rel string) (string, error) {
		target := rel
		if baseOnly {
			target = path.Base(rel)
		}
		if ok, _ := doublestar.Match(filter, target); !ok {
			return "", nil
		}
		if read > maxRankBytes || len(cands) >= maxCandidates {
			notes = append(notes, fmt.Sprintf("ranked the lines of the first %s only", plural(files, "file")))
			return "", errStop
		}
		files++
		inFile := make([]bool, len(terms))
		pathKeys := words.Forms(words.Fold(rel))
		header := tableHeader{csv: tableComma(rel) != 0}
		keys := newKeyPath(rel)
		stop, _ := f.grepFile(ctx, rel, matchAll, func(line int, text string) bool {
			read += int64(len(text)) + 1
			folded := words.Fold(text) // "dias" finds "días"
			forms := append(append(words.Forms(folded), pathKeys...), header.next(line, folded)...)
			forms = append(forms, keys.next(folded)...)
			var has []bool
			for i, t := range terms {
				if slices.ContainsFunc(forms, func(k words.Form) bool { return k.Matches(t) }) {
					if has == nil {
						has = make([]bool, len(terms))
					}
					has[i], inFile[i] = true, true
				}
			}
			if has != nil && len(cands) < maxCandidates {
				cands = append(cands, candidate{grepMatch{rel, line, text}, has})
			}
			return true
		})
		for i, in := range inFile {
			if in {
				df[i]++
			}
		}
		if stop {
			return "", errStop
		}
		return "", nil
	})
	if walkErr != nil && !errors.Is(walkErr, errStop) {
		return nil, nil, walkErr
	}
	// A word weighs its rarity, and a quarter more for the first word
	// of the pattern, falling to nothing for the last: people type the
	// word that matters first, and it breaks ties.
	// A code, a word of letters and digits ("P-104", "C-008", "v2"),
	// weighs twice: typed as the files write it, it is what the lines
	// must hold; rarer, a plural noun of one comment outranked it.
	idf := make([]float64, len(terms))
	for i, n := range df {
		idf[i] = math.Log(float64(files+1)/(float64(n)+0.5)) * (1 + 0.25*float64(len(terms)-1-i)/float64(len(terms)-1))
		if isCode(terms[i]) {
			idf[i] *= 2
		}
	}
	score := func(c candidate) float64 {
		s := 0.0
		for i, h := range c.has {
			if h {
				s += max(idf[i], 0.01)
			}
		}
		return s
	}
	// Lines of equal score go less indented first (a declaration,
	// "func ParseLine", before its uses in a test's body), then in the
	// order of their files' scores, the sum of their lines': the file
	// that holds the words most often first.
	lineScore := make([]float64, len(cands))
	indents := make([]int, len(cands))
	fileScore := map[string]float64{}
	for i, c := range cands {
		lineScore[i], indents[i] = score(c), indent(c.text)
		fileScore[c.file] += lineScore[i]
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Or(cmp.Compare(lineScore[y], lineScore[x]), cmp.Compare(indents[x], indents[y]), cmp.Compare(fileScore[cands[y].file], fileScore[cands[x].file]))
	})
	var out []grepMatch
	perFile := map[string]int{}
	for _, i := range order {
		c := cands[i]
		if len(out) == maxRanked {
			break
		}
		if perFile[c.file] == maxRankedPerFile || strings.TrimSpace(c.text) == "" {
			continue // a blank line holds only words it is under (its path, a header), none of its own
		}
		perFile[c.file]++
		out = append(out, c.grepMatch)
	}
	return out, notes, nil
}

// tableHeader follows the tables of a file, line by line: a table's row
// holds its header's words. A CSV or TSV file is one table under its
// first line; a Markdown table's header is the line above its delimiter
// row ("phone Anna" is about "| Anna Keller | +33 6 12 48 90 17 |" under
// "| Name | Phone |").
type tableHeader struct {
	csv    bool         // the file is a CSV or TSV table
	prev   string       // the line before (Markdown)
	header []words.Form // the keys of the header of the table the lines are in
}

// mdRule matches a Markdown table's delimiter row: "|---|:--:|".
var mdRule = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$`)

// next returns the header keys that text, the file's line numbered line,
// holds as a row of a table.
func (t *tableHeader) next(line int, text string) []words.Form {
	if t.csv {
		if line == 1 {
			t.header = words.Forms(text)
		}
		return t.header
	}
	prev := t.prev
	t.prev = text
	switch {
	case strings.Contains(prev, "|") && strings.Contains(text, "-") && mdRule.MatchString(text):
		t.header = words.Forms(prev)
		return nil
	case t.header != nil && strings.Contains(text, "|"):
		return t.header
	}
	t.header = nil
	return nil
}

// keyPath follows the keys of a configuration file, line by line: a
// line holds the words of the keys it is under. In YAML, those are the
// keys of the lines above it indented less ("open_above_c: 28" under
// "vents:" is about vents); in TOML and INI files, the section's name
// ("[vents]"). Asked to raise "the vent opening temperature", the best
// line was a Python log call on vents, not the setting under "vents:".
type keyPath struct {
	kind  keyKind
	stack []keyAt      // the keys the line is under, outermost first
	flat  []words.Form // their words, kept as the stack changes
}

// keyKind is how a configuration file nests its keys.
type keyKind int

const (
	notKeyed   keyKind = iota // not a configuration file
	byIndent                  // YAML: by indentation
	bySections                // TOML, INI: under "[section]" lines
)

// keyAt is a key and the indentation of its line.
type keyAt struct {
	indent int
	forms  []words.Form
}

// newKeyPath returns the key follower for the file rel, by its name.
func newKeyPath(rel string) keyPath {
	switch strings.ToLower(path.Ext(rel)) {
	case ".yaml", ".yml":
		return keyPath{kind: byIndent}
	case ".toml", ".ini", ".cfg", ".conf":
		return keyPath{kind: bySections}
	}
	return keyPath{}
}

// next returns the keys' words that text, the file's next line, is
// under.
func (k *keyPath) next(text string) []words.Form {
	trim := strings.TrimSpace(text)
	if k.kind == notKeyed || trim == "" || trim[0] == '#' || trim[0] == ';' {
		return nil // a blank line or a comment is under its keys but says nothing of them
	}
	if k.kind == bySections {
		if strings.HasPrefix(trim, "[") && strings.HasSuffix(trim, "]") {
			k.stack = []keyAt{{0, words.Forms(strings.Trim(trim, "[]"))}}
			k.flatten()
			return nil
		}
		return k.flat
	}
	in := indent(text)
	n := len(k.stack)
	for n > 0 && k.stack[n-1].indent >= in {
		n--
	}
	if n < len(k.stack) {
		k.stack = k.stack[:n]
		k.flatten()
	}
	above := k.flat
	if key, _, ok := strings.Cut(strings.TrimPrefix(trim, "- "), ":"); ok && key != "" && !strings.ContainsAny(key, " \t\"'{[") {
		k.stack = append(k.stack, keyAt{in, words.Forms(key)})
		k.flatten()
	}
	return above
}

// flatten sets flat to the words of the keys on the stack; a new slice
// each time, so that what next returned for a line above stays as it was.
func (k *keyPath) flatten() {
	k.flat = nil
	for _, at := range k.stack {
		k.flat = append(k.flat, at.forms...)
	}
}

// indent is the width of a line's leading blanks, a tab or space each.
func indent(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) }

// isCode reports whether a term holds both a letter and a digit.
func isCode(term string) bool {
	return strings.ContainsFunc(term, unicode.IsLetter) && strings.ContainsFunc(term, unicode.IsDigit)
}
