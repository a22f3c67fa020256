package bench

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/offgrid-ai/offgrid/grammar"
)

// Output is what a model produced for one case.
type Output struct {
	Raw   string
	Calls []grammar.Call
	// ParseErr is the error decoding Raw into calls, if any.
	ParseErr error
	Stats    Stats
}

// Stats are a completion's token counts and timings.
type Stats struct {
	PromptTokens     int
	PromptDuration   time.Duration
	Generated        int
	GenerateDuration time.Duration
}

// CompleteFunc answers one case in a fresh conversation. An error means
// the case could not be run (it is recorded and the run goes on); a reply
// that does not parse is reported in Output.ParseErr instead.
type CompleteFunc func(ctx context.Context, c *Case) (Output, error)

// Progress is told after each case: the run so far, and how many case
// results the run will hold.
type Progress func(run Run, total int)

// RunCases runs every case through complete and scores it. Template fields of
// run (runner, model, grammar mode, …) are kept; Cases and Seconds are
// filled. The cases run holds already (an earlier run's, resumed) are
// kept and not run again. It stops early, returning what it has, when ctx
// is done.
func RunCases(ctx context.Context, run Run, cases []Case, complete CompleteFunc, progress Progress) (Run, error) {
	start := time.Now()
	seconds := run.Seconds
	repeats := max(run.Repeats, 1)
	type key struct {
		id     string
		repeat int
	}
	done := map[key]bool{}
	for _, c := range run.Cases {
		done[key{c.ID, c.Repeat}] = true
	}
	order := map[string]int{}
	for i, c := range cases {
		order[c.ID] = i
	}
	finish := func() {
		slices.SortStableFunc(run.Cases, func(a, b CaseResult) int {
			return cmp.Or(cmp.Compare(order[a.ID], order[b.ID]), cmp.Compare(a.Repeat, b.Repeat))
		})
		run.Seconds = seconds + time.Since(start).Seconds()
	}
	for i := range len(cases) * repeats {
		c, repeat := cases[i/repeats], i%repeats
		if done[key{c.ID, repeat}] {
			continue
		}
		if repeats > 1 {
			c.Seed = RepeatSeed(run.Seed, c.ID, repeat)
		}
		if err := ctx.Err(); err != nil {
			finish()
			return run, err
		}
		t0 := time.Now()
		out, err := complete(ctx, &c)
		lat := time.Since(t0)
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			finish()
			return run, err
		}
		r := CaseResult{
			Repeat:          repeat,
			Raw:             out.Raw,
			Calls:           callsFrom(out.Calls),
			LatencySeconds:  lat.Seconds(),
			PromptTokens:    out.Stats.PromptTokens,
			PromptSeconds:   out.Stats.PromptDuration.Seconds(),
			GeneratedTokens: out.Stats.Generated,
			GenerateSeconds: out.Stats.GenerateDuration.Seconds(),
		}
		switch {
		case err != nil:
			r.Error = err.Error()
			r.ParseError = err.Error()
		case out.ParseErr != nil:
			r.ParseError = out.ParseErr.Error()
		}
		if err := Score(&c, &r); err != nil {
			return run, err
		}
		run.Cases = append(run.Cases, r)
		run.Seconds = seconds + time.Since(start).Seconds()
		if progress != nil {
			progress(run, len(cases)*repeats)
		}
	}
	finish()
	return run, nil
}
