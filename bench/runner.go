package bench

import (
	"context"
	"errors"
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

// Progress is told after each case.
type Progress func(done, total int)

// RunCases runs every case through complete and scores it. Template fields of
// run (runner, model, grammar mode, …) are kept; Cases and Seconds are
// filled. It stops early, returning what it has, when ctx is done.
func RunCases(ctx context.Context, run Run, cases []Case, complete CompleteFunc, progress Progress) (Run, error) {
	start := time.Now()
	repeats := max(run.Repeats, 1)
	run.Cases = make([]CaseResult, 0, len(cases)*repeats)
	for i := range len(cases) * repeats {
		c, repeat := cases[i/repeats], i%repeats
		if repeats > 1 {
			c.Seed = RepeatSeed(run.Seed, c.ID, repeat)
		}
		if err := ctx.Err(); err != nil {
			run.Seconds = time.Since(start).Seconds()
			return run, err
		}
		t0 := time.Now()
		out, err := complete(ctx, &c)
		lat := time.Since(t0)
		if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			run.Seconds = time.Since(start).Seconds()
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
		if progress != nil {
			progress(i+1, len(cases)*repeats)
		}
	}
	run.Seconds = time.Since(start).Seconds()
	return run, nil
}
