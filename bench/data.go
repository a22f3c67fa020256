package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/offgrid-ai/offgrid/bench/bfcl"
	"github.com/offgrid-ai/offgrid/bench/checker"
	"github.com/offgrid-ai/offgrid/grammar"
)

// Categories lists the categories bench runs, in report order. BFCL's
// simple_python is "simple"; the live_ variants keep their names.
var categories = []string{
	"simple", "multiple", "parallel", "parallel_multiple", "irrelevance",
	"live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance",
}

// Categories returns the categories bench can score, in report order.
func Categories() []string { return slices.Clone(categories) }

// Message is one message of a case's conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Case is one BFCL question with what scoring it needs.
type Case struct {
	ID string
	// Seed, when not 0, is the sampling seed of this run of the case
	// (RunCases with Run.Repeats): RepeatSeed of the run's seed.
	Seed uint32
	// Category is one of Categories; BFCLCategory is the id's prefix as
	// BFCL names it (e.g. "simple_python"), which the checker dispatches on.
	Category, BFCLCategory string
	// Messages is the first (only) turn of the question.
	Messages []Message
	// Functions is the raw BFCL function list.
	Functions json.RawMessage
	Tools     []grammar.Tool
	Funcs     []checker.Function
	// Answers is nil for irrelevance categories.
	Answers []checker.Answer
}

// ExpectsCalls reports whether the case is scored on calls made (every
// category but irrelevance).
func (c *Case) ExpectsCalls() bool { return !checker.Irrelevance(c.BFCLCategory) }

// ErrData is wrapped by errors about BFCL files.
var ErrData = errors.New("bench: bad BFCL data")

// LoadOptions selects cases.
type LoadOptions struct {
	// Categories keeps only these (nil: all that are present).
	Categories []string
	// Limit keeps the first Limit cases of each category (0: all).
	Limit int
}

// Load reads BFCL question files and their possible answers. Each path is
// a question file (answers in possible_answer/ beside it, same name) or a
// directory of them. Categories bench cannot score (other languages,
// multi-turn, …) are skipped and counted in skipped, by BFCL category.
// Cases come in Categories order, then file order.
func Load(paths []string, opts LoadOptions) (cases []Case, skipped map[string]int, err error) {
	for _, c := range opts.Categories {
		if !slices.Contains(categories, c) {
			return nil, nil, fmt.Errorf("bench: unknown category %q (want one of %s)", c, strings.Join(categories, ", "))
		}
	}
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("bench: data: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(p, "*.json"))
		found = append(found, must(filepath.Glob(filepath.Join(p, "*.jsonl")))...)
		if len(found) == 0 {
			return nil, nil, fmt.Errorf("%w: no .json question files in %s", ErrData, p)
		}
		slices.Sort(found)
		files = append(files, found...)
	}
	skipped = map[string]int{}
	byCat := map[string][]Case{}
	seen := map[string]bool{}
	for _, f := range files {
		got, err := loadFile(f, skipped)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range got {
			if seen[c.ID] {
				return nil, nil, fmt.Errorf("%w: %s: duplicate id %q", ErrData, f, c.ID)
			}
			seen[c.ID] = true
			if opts.Categories != nil && !slices.Contains(opts.Categories, c.Category) {
				continue
			}
			if opts.Limit > 0 && len(byCat[c.Category]) >= opts.Limit {
				continue
			}
			byCat[c.Category] = append(byCat[c.Category], c)
		}
	}
	for _, cat := range categories {
		cases = append(cases, byCat[cat]...)
	}
	return cases, skipped, nil
}

func must[T any](v T, _ error) T { return v }

// Category maps a BFCL case id ("simple_python_12", "live_multiple_3-2-1")
// to its BFCL category and bench category ("" when bench cannot score it).
func Category(id string) (bfcl, cat string) {
	bfcl = id
	if i := strings.LastIndexByte(id, '_'); i > 0 {
		bfcl = id[:i]
	}
	switch bfcl {
	case "simple_python", "simple":
		return bfcl, "simple"
	case "live_simple_python":
		return bfcl, "live_simple"
	}
	if slices.Contains(categories, bfcl) {
		return bfcl, bfcl
	}
	return bfcl, ""
}

type questionLine struct {
	ID       string          `json:"id"`
	Question [][]Message     `json:"question"`
	Function json.RawMessage `json:"function"`
}

func loadFile(path string, skipped map[string]int) ([]Case, error) {
	lines, document, err := readJSONLines(path)
	if err != nil {
		return nil, err
	}
	if document {
		skipped[filepath.Base(path)]++
		return nil, nil
	}
	var answers map[string]json.RawMessage
	var cases []Case
	for n, line := range lines {
		var head struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %w", ErrData, path, n+1, err)
		}
		if head.ID == "" {
			return nil, fmt.Errorf("%w: %s:%d: no id", ErrData, path, n+1)
		}
		bfclCat, cat := Category(head.ID)
		if cat == "" { // checked first: other categories have other shapes
			skipped[bfclCat]++
			continue
		}
		var q questionLine
		if err := json.Unmarshal(line, &q); err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %w", ErrData, path, n+1, err)
		}
		if len(q.Question) != 1 {
			skipped[bfclCat]++
			continue
		}
		c := Case{ID: q.ID, Category: cat, BFCLCategory: bfclCat, Messages: q.Question[0], Functions: q.Function}
		if len(c.Messages) == 0 {
			return nil, fmt.Errorf("%w: %s: empty question", ErrData, q.ID)
		}
		fns, err := bfcl.Functions(q.Function)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrData, q.ID, err)
		}
		if c.Tools, err = grammar.ParseTools(fns); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrData, q.ID, err)
		}
		if c.Funcs, err = checker.ParseFunctions(q.Function); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrData, q.ID, err)
		}
		if c.ExpectsCalls() && !checker.Relevance(bfclCat) {
			if answers == nil {
				if answers, err = loadAnswers(path); err != nil {
					return nil, err
				}
			}
			gt, ok := answers[q.ID]
			if !ok {
				return nil, fmt.Errorf("%w: %s: no possible answer for %s", ErrData, path, q.ID)
			}
			if c.Answers, err = checker.ParseAnswers(gt); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrData, q.ID, err)
			}
		}
		cases = append(cases, c)
	}
	return cases, nil
}

func loadAnswers(questions string) (map[string]json.RawMessage, error) {
	path := filepath.Join(filepath.Dir(questions), "possible_answer", filepath.Base(questions))
	lines, _, err := readJSONLines(path)
	if err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(lines))
	for n, line := range lines {
		var a struct {
			ID          string          `json:"id"`
			GroundTruth json.RawMessage `json:"ground_truth"`
		}
		if err := json.Unmarshal(line, &a); err != nil || a.ID == "" {
			return nil, fmt.Errorf("%w: %s:%d: want {\"id\",\"ground_truth\"}", ErrData, path, n+1)
		}
		out[a.ID] = a.GroundTruth
	}
	return out, nil
}

// readJSONLines returns the non-blank lines of a JSON-lines file, and
// whether the file is instead one JSON document spread over lines (as
// BFCL's format_sensitivity index is).
func readJSONLines(path string) (lines [][]byte, document bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, fmt.Errorf("bench: data: %w", err)
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			lines = append(lines, l)
		}
	}
	if len(lines) > 1 && !json.Valid(lines[0]) && json.Valid(data) {
		return nil, true, nil
	}
	return lines, false, nil
}
