package curator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/internal/words"
)

// Range is a span of lines, 1-based and inclusive.
type Range struct {
	From int `json:"from"`
	To   int `json:"to"`
}

func (r Range) String() string { return fmt.Sprintf("%d–%d", r.From, r.To) }

// Section is a candidate shown to a Chooser: a range of the file and the
// lines of it most worth showing (numbered as in the file).
type Section struct {
	Range
	// Lines are a few of the section's lines, keyed by line number.
	Lines []Line
}

// Line is one line of a file.
type Line struct {
	N    int
	Text string
}

// A Chooser picks, among candidate sections of a file, those a request
// needs: indexes into sections, most relevant first.
type Chooser interface {
	Choose(ctx context.Context, request, file string, lines int, sections []Section) ([]int, error)
}

// Method says how a Selection was made.
type Method string

// Methods.
const (
	MethodLines   Method = "lines"   // lines the request names
	MethodChooser Method = "chooser" // the Chooser's pick among ranked sections
	MethodRanked  Method = "ranked"  // the best-ranked sections (no Chooser, or it failed)
	MethodHead    Method = "head"    // the head and tail (nothing matched)
)

// Selection is the curator's answer for one file and request.
type Selection struct {
	// Ranges are the lines to show, in file order, not overlapping.
	Ranges []Range `json:"ranges"`
	Method Method  `json:"method"`
	// Lines is the file's line count.
	Lines int `json:"lines"`
	// Cached is true when the answer came from the cache.
	Cached bool `json:"-"`
	// Err, if the Chooser failed, is why (the ranked sections were used).
	Err error `json:"-"`
}

// Options configure a Curator.
type Options struct {
	// Chooser picks among ranked sections; nil ranks only.
	Chooser Chooser
	// ID names the Chooser in cache keys (a model's identity); answers of
	// different choosers are cached apart.
	ID string
	// CacheDir, if set, keeps answers on disk across sessions.
	CacheDir string
	// SectionLines is the size of a section (default 30); Candidates how
	// many ranked sections a Chooser is shown (default 6); Picks the most
	// sections returned (default 3).
	SectionLines, Candidates, Picks int
}

// Curator chooses the parts of files that matter for requests. It is
// safe for concurrent use.
type Curator struct {
	opts  Options
	mu    sync.Mutex
	mem   map[string]Selection
	swept map[string]bool // cache directories cleared of stale temporary files
}

// New returns a Curator.
func New(opts Options) *Curator {
	if opts.SectionLines <= 0 {
		opts.SectionLines = 30
	}
	if opts.Candidates <= 0 {
		opts.Candidates = 6
	}
	if opts.Picks <= 0 {
		opts.Picks = 3
	}
	return &Curator{opts: opts, mem: map[string]Selection{}, swept: map[string]bool{}}
}

// version changes when the way answers are made changes, so that old
// cache entries are not used.
const version = "curator 1"

// Curate returns the ranges of text (a file's content; name is its name,
// shown to the Chooser) that request needs. Only a cancelled ctx makes
// it fail: any other trouble falls back to a plainer method.
func (c *Curator) Curate(ctx context.Context, request, name, text string) (Selection, error) {
	lines := splitLines(text)
	key := c.key(request, text)
	if s, ok := c.cached(key, len(lines)); ok {
		return s, nil
	}
	s := c.curate(ctx, request, name, lines)
	if err := ctx.Err(); err != nil {
		return Selection{}, err
	}
	c.store(key, s)
	return s, nil
}

func (c *Curator) curate(ctx context.Context, request, name string, lines []string) Selection {
	n := len(lines)
	sel := func(m Method, rs ...Range) Selection { return Selection{Ranges: merge(rs, n), Method: m, Lines: n} }
	if rs := namedLines(request, n); len(rs) > 0 {
		return sel(MethodLines, rs...)
	}
	secs := c.sections(n)
	scores := score(terms(request, name), lines, secs)
	ranked := rank(scores)
	if len(ranked) == 0 {
		return sel(MethodHead, Range{1, min(n, 2*c.opts.SectionLines)}, Range{max(n-c.opts.SectionLines/2+1, 1), n})
	}
	best := ranked[:min(len(ranked), c.opts.Picks)]
	fallback := func(err error) Selection {
		s := sel(MethodRanked, pick(secs, best)...)
		s.Err = err
		return s
	}
	if c.opts.Chooser == nil {
		return fallback(nil)
	}
	cands := ranked[:min(len(ranked), c.opts.Candidates)]
	slices.Sort(cands) // file order reads better
	shown := make([]Section, len(cands))
	for i, k := range cands {
		shown[i] = Section{Range: secs[k], Lines: excerpt(lines, secs[k], terms(request, name), 8)}
	}
	idx, err := c.opts.Chooser.Choose(ctx, request, name, n, shown)
	if err != nil {
		return fallback(err)
	}
	var chosen []int
	for _, i := range idx {
		if i < 0 || i >= len(cands) {
			return fallback(fmt.Errorf("curator: the chooser picked section %d of %d", i+1, len(cands)))
		}
		if !slices.Contains(chosen, cands[i]) && len(chosen) < c.opts.Picks {
			chosen = append(chosen, cands[i])
		}
	}
	if len(chosen) == 0 {
		return fallback(errors.New("curator: the chooser picked no section"))
	}
	return sel(MethodChooser, pick(secs, chosen)...)
}

// sections cuts n lines into sections.
func (c *Curator) sections(n int) []Range {
	var secs []Range
	for from := 1; from <= n; from += c.opts.SectionLines {
		secs = append(secs, Range{from, min(from+c.opts.SectionLines-1, n)})
	}
	return secs
}

func pick(secs []Range, idx []int) []Range {
	rs := make([]Range, len(idx))
	for i, k := range idx {
		rs[i] = secs[k]
	}
	return rs
}

// merge sorts ranges, clamps them to 1..n and joins those that overlap
// or touch.
func merge(rs []Range, n int) []Range {
	var out []Range
	for _, r := range rs {
		r.From, r.To = max(r.From, 1), min(r.To, n)
		if r.From <= r.To {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Range) int { return a.From - b.From })
	merged := out[:0]
	for _, r := range out {
		if k := len(merged); k > 0 && r.From <= merged[k-1].To+1 {
			merged[k-1].To = max(merged[k-1].To, r.To)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// splitLines splits text into lines without their line ends.
func splitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// Lines named by a request.
var (
	lineRef  = regexp.MustCompile(`(?i)\blines?\s+(\d[\d,]*)(?:\s*(?:-|–|—|to|through|and)\s*(\d[\d,]*))?`)
	tailRef  = regexp.MustCompile(`(?i)\b(last|final|end of|bottom|tail)\b`)
	headRef  = regexp.MustCompile(`(?i)\b(first|beginning|start of|top of|head)\b`)
	anyLines = regexp.MustCompile(`(?i)\blines?\b`)
)

// around is how many lines around a named line are shown with it.
const around = 3

// namedLines returns the lines a request names ("line 2999", "lines
// 10-20", "the last lines"), with a little context, or nil.
func namedLines(request string, n int) []Range {
	var rs []Range
	for _, m := range lineRef.FindAllStringSubmatch(request, -1) {
		from, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if err != nil {
			continue
		}
		to := from
		if m[2] != "" {
			if t, err := strconv.Atoi(strings.ReplaceAll(m[2], ",", "")); err == nil && t >= from && t-from < 200 {
				to = t
			}
		}
		if from > n {
			// Past the end: show the end, which says as much.
			from, to = n, n
		}
		rs = append(rs, Range{from - around, to + around})
	}
	if len(rs) == 0 && anyLines.MatchString(request) {
		if tailRef.MatchString(request) {
			rs = append(rs, Range{n - 19, n})
		}
		if headRef.MatchString(request) {
			rs = append(rs, Range{1, 20})
		}
	}
	return rs
}

// stop are words too common to rank sections by.
var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for are was were what which who whom whose when where why how
		does did doing done this that these those with from into onto about above below there their them they
		then than have has had not but you your yours can could would should will shall may might must its
		all any each some many much more most other such only own same very just also out over under again
		file files line lines read show tell find give list print look see say says said mean means contain contains containing
		value set use used using get please want need know let make whole part text content contents first
		last number there here one two`) {
		m[w] = true
	}
	return m
}()

// terms are the words of a request that can rank sections: lower case,
// at least three letters (or two digits), common words and the file's
// own name left out.
func terms(request, name string) []string {
	skip := map[string]bool{}
	for _, w := range words.Split(strings.ToLower(filepath.Base(name))) {
		skip[w] = true
	}
	var ts []string
	for _, w := range words.Split(strings.ToLower(request)) {
		digits := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
		if stop[w] || skip[w] || (len(w) < 3 && !(digits && len(w) == 2)) || slices.Contains(ts, w) {
			continue
		}
		ts = append(ts, w)
	}
	return ts
}

// score ranks sections: the sum over the request's terms found in a
// section of the term's rarity across sections (idf) times 1 + log of
// its count there (doubled for terms with digits: numbers and codes name
// one thing), times the number of distinct terms found, so that a
// section with several of the request's words beats one repeating one.
func score(ts []string, lines []string, secs []Range) []float64 {
	scores := make([]float64, len(secs))
	if len(ts) == 0 {
		return scores
	}
	tf := make([][]int, len(secs))
	df := make([]int, len(ts))
	for s, r := range secs {
		tf[s] = make([]int, len(ts))
		for i := r.From; i <= r.To; i++ {
			l := strings.ToLower(lines[i-1])
			for t, term := range ts {
				tf[s][t] += words.Count(l, term)
			}
		}
		for t := range ts {
			if tf[s][t] > 0 {
				df[t]++
			}
		}
	}
	for s := range secs {
		sum, distinct := 0.0, 0
		for t := range ts {
			if tf[s][t] == 0 {
				continue
			}
			idf := math.Log(float64(len(secs)+1) / (float64(df[t]) + 0.5))
			w := max(idf, 0.01) * (1 + math.Log(float64(tf[s][t])))
			if strings.ContainsFunc(ts[t], unicode.IsDigit) {
				w *= 2 // a number or code names one thing
			}
			sum += w
			distinct++
		}
		scores[s] = sum * float64(distinct)
	}
	return scores
}

// rank returns the indexes of the sections that scored, best first (ties
// in file order).
func rank(scores []float64) []int {
	var idx []int
	for i, s := range scores {
		if s > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	return idx
}

// excerpt returns up to k lines of section r to show a Chooser: those
// with the most of the request's terms, else the first non-blank ones,
// in file order, each cut to 120 characters.
func excerpt(lines []string, r Range, ts []string, k int) []Line {
	type scored struct{ n, hits int }
	var cand []scored
	for i := r.From; i <= r.To; i++ {
		if strings.TrimSpace(lines[i-1]) == "" {
			continue
		}
		l, hits := strings.ToLower(lines[i-1]), 0
		for _, t := range ts {
			if words.Count(l, t) > 0 {
				hits++
			}
		}
		cand = append(cand, scored{i, hits})
	}
	slices.SortStableFunc(cand, func(a, b scored) int { return b.hits - a.hits })
	cand = cand[:min(len(cand), k)]
	slices.SortFunc(cand, func(a, b scored) int { return a.n - b.n })
	out := make([]Line, len(cand))
	for i, c := range cand {
		text := lines[c.n-1]
		if len([]rune(text)) > 120 {
			text = string([]rune(text)[:120]) + "…"
		}
		out[i] = Line{c.n, text}
	}
	return out
}

// key identifies an answer: the curator's version, the chooser, the
// file's content and the request.
func (c *Curator) key(request, text string) string {
	file := sha256.Sum256([]byte(text))
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d/%d/%d\x00%x\x00%s", version, c.opts.ID, c.opts.SectionLines, c.opts.Candidates, c.opts.Picks,
		file, strings.Join(strings.Fields(request), " "))
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Curator) path(key string) string {
	return filepath.Join(c.opts.CacheDir, key[:2], key+".json")
}

// cached returns a cached answer for a file of n lines; an unreadable
// or invalid disk entry is ignored (and replaced when the answer is
// stored again).
func (c *Curator) cached(key string, n int) (Selection, bool) {
	c.mu.Lock()
	s, ok := c.mem[key]
	c.mu.Unlock()
	if !ok && c.opts.CacheDir != "" {
		b, err := os.ReadFile(c.path(key))
		if err == nil && json.Unmarshal(b, &s) == nil && s.valid(n) {
			ok = true
			c.mu.Lock()
			c.mem[key] = s
			c.mu.Unlock()
		}
	}
	s.Cached = ok
	return s, ok
}

// valid reports whether s is a well-formed answer for a file of n lines.
func (s Selection) valid(n int) bool {
	if s.Lines != n || len(s.Ranges) == 0 {
		return false
	}
	prev := 0
	for _, r := range s.Ranges {
		if r.From <= prev || r.To < r.From || r.To > n {
			return false
		}
		prev = r.To
	}
	return true
}

// store keeps an answer made without a chooser error (a failure may be
// passing) in memory and on disk.
func (c *Curator) store(key string, s Selection) {
	if s.Err != nil {
		return
	}
	c.mu.Lock()
	c.mem[key] = s
	c.mu.Unlock()
	if c.opts.CacheDir == "" {
		return
	}
	b, err := json.Marshal(s)
	if err != nil {
		return
	}
	p := c.path(key)
	if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
		c.sweep(filepath.Dir(p))
		atomicfile.WriteFile(p, b, 0o644) // a cache: a failed write costs a later recomputation only
	}
}

// sweep removes, the first time the curator writes to the cache
// directory dir, the stale temporary files of saves that were killed
// (see [atomicfile.IsStale]); a younger one may be another process's
// save in progress.
func (c *Curator) sweep(dir string) {
	c.mu.Lock()
	done := c.swept[dir]
	c.swept[dir] = true
	c.mu.Unlock()
	if done {
		return
	}
	if root, err := os.OpenRoot(dir); err == nil {
		atomicfile.SweepStale(root, time.Now())
		root.Close()
	}
}
