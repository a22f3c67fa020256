package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
)

// SpeedContext is what the speed benchmark needs of an engine context;
// *inference.Context satisfies it.
type SpeedContext interface {
	agent.Engine
	Reset()
	SetPrefixCache(inference.PrefixCache)
}

// SpeedOptions configures Speed.
type SpeedOptions struct {
	Model   string // shown in the rows
	Threads int    // shown in the rows
	// PromptTokens is the prompt of the prefill test (llama-bench's -p).
	PromptTokens int
	// GenTokens is the number of tokens of the decode tests (-n).
	GenTokens int
	// Reps is how many times each test runs (-r).
	Reps int
	// Info and Tools are the model and the tool set of the agent turn
	// whose time to the first token is measured.
	Info  agent.ModelInfo
	Tools []grammar.Tool
	// Cache returns an empty prompt cache in a directory of its own
	// (cold), or with warm the one the last cold call returned.
	Cache func(warm bool) (inference.PrefixCache, error)
	// SystemInfo is the engine's system info line.
	SystemInfo string
	// ModelBytes is the size of the weights (for the decode ceiling).
	ModelBytes uint64
	// Progress, when set, is told each test as it starts.
	Progress func(test string, rep int)
}

// Spread is the minimum, median and maximum of repeated measurements.
type Spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

func spread(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := slices.Sorted(slices.Values(xs))
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{Min: s[0], Median: m, Max: s[len(s)-1]}
}

// SpeedResult is what `offgrid bench --speed` prints (its --json form).
type SpeedResult struct {
	Runner       string `json:"runner"`
	Model        string `json:"model"`
	Threads      int    `json:"threads"`
	PromptTokens int    `json:"prompt_tokens"`
	GenTokens    int    `json:"gen_tokens"`
	Reps         int    `json:"reps"`
	// Prefill is prompt tokens per second; Decode and DecodeGrammar
	// generated tokens per second, free and under the tool grammar.
	Prefill       Spread `json:"prefill_tok_s"`
	Decode        Spread `json:"decode_tok_s"`
	DecodeGrammar Spread `json:"decode_grammar_tok_s"`
	// FirstToken is the time in seconds from the start of an agent turn
	// on the tool set (prompt rendering) to its first generated token,
	// with an empty prompt cache and with a warm one.
	FirstToken struct {
		Cold Spread `json:"cold"`
		Warm Spread `json:"warm"`
	} `json:"first_token_s"`
	// AgentPromptTokens is the length of that turn's prompt; AgentPrefix
	// the part before the user's text, which the prompt cache keeps.
	AgentPromptTokens int `json:"agent_prompt_tokens"`
	AgentPrefix       int `json:"agent_prefix_tokens"`
	// MemoryGBs is a STREAM-like copy's bandwidth with Threads threads
	// (bytes read plus bytes written per second, in GB/s); ModelBytes the
	// weights each decoded token reads (about all of them: the output
	// layer and the blocks); DecodeCeiling their ratio, the decode
	// tokens/s memory allows.
	MemoryGBs     float64 `json:"memory_gb_s,omitempty"`
	ModelBytes    uint64  `json:"model_bytes,omitempty"`
	DecodeCeiling float64 `json:"decode_ceiling_tok_s,omitempty"`
	SystemInfo    string  `json:"system_info"`
}

// speedText is tokenized and repeated to make the benchmark's prompts.
const speedText = "The quick brown fox jumps over the lazy dog while the river runs past the old mill. "

// FirstTokenRequest is the user message of the time-to-first-token test.
const FirstTokenRequest = "List the files in this directory."

// Speed measures prefill, decode (free and under the tool grammar) and an
// agent turn's time to the first token, each Reps times, on c. It resets
// c's KV cache and prompt cache between runs and leaves c without a
// prompt cache.
func Speed(ctx context.Context, c SpeedContext, o SpeedOptions) (SpeedResult, error) {
	o.Reps = max(o.Reps, 1)
	res := SpeedResult{Runner: "offgrid", Model: o.Model, Threads: o.Threads, PromptTokens: o.PromptTokens,
		GenTokens: o.GenTokens, Reps: o.Reps, SystemInfo: o.SystemInfo}
	defer c.SetPrefixCache(nil)
	c.SetPrefixCache(nil)
	progress := func(test string, rep int) {
		if o.Progress != nil {
			o.Progress(test, rep)
		}
	}
	text, err := c.Tokenize(speedText, false, false)
	if err != nil {
		return res, err
	}
	if len(text) == 0 {
		return res, errors.New("bench: the benchmark text tokenizes to nothing")
	}
	tokens := func(n int) []inference.Token {
		out := make([]inference.Token, 0, n)
		for len(out) < n {
			out = append(out, text[:min(len(text), n-len(out))]...)
		}
		return out
	}
	// The peer script samples the same way.
	sampling := inference.Sampling{Temperature: 0.8, TopK: 40, TopP: 0.95, RepeatPenalty: 1}

	var prefill, decode, decodeG []float64
	gen := func(g *inference.Grammar, rep int) (float64, error) {
		c.Reset()
		s := sampling
		s.Seed = uint32(rep + 1)
		r, err := c.Generate(ctx, inference.Request{Prompt: tokens(16), MaxTokens: o.GenTokens, Sampling: s, Grammar: g}, nil)
		if err != nil {
			return 0, err
		}
		return r.Stats.GenerateTokensPerSecond(), nil
	}
	eg, err := SpeedGrammar(o.Info, o.Tools)
	if err != nil {
		return res, err
	}
	// Warm-up, as llama-bench does: the first decode after loading pages
	// the weights in.
	progress("warm-up", 0)
	c.Reset()
	if _, err := c.Generate(ctx, inference.Request{Prompt: tokens(o.PromptTokens), MaxTokens: 2, Sampling: sampling}, nil); err != nil {
		return res, err
	}
	for rep := range o.Reps {
		progress(fmt.Sprintf("pp%d", o.PromptTokens), rep)
		c.Reset()
		r, err := c.Generate(ctx, inference.Request{Prompt: tokens(o.PromptTokens), MaxTokens: 1, Sampling: sampling}, nil)
		if err != nil {
			return res, err
		}
		prefill = append(prefill, r.Stats.PromptTokensPerSecond())
		progress(fmt.Sprintf("tg%d", o.GenTokens), rep)
		v, err := gen(nil, rep)
		if err != nil {
			return res, err
		}
		decode = append(decode, v)
		progress(fmt.Sprintf("tg%d grammar", o.GenTokens), rep)
		if v, err = gen(eg, rep); err != nil {
			return res, err
		}
		decodeG = append(decodeG, v)
	}
	res.Prefill, res.Decode, res.DecodeGrammar = spread(prefill), spread(decode), spread(decodeG)

	var cold, warm []float64
	for rep := range o.Reps {
		for _, w := range []bool{false, true} {
			progress(map[bool]string{false: "first token cold", true: "first token warm"}[w], rep)
			pc, err := o.Cache(w)
			if err != nil {
				return res, err
			}
			c.Reset()
			c.SetPrefixCache(pc)
			d, st, err := firstToken(ctx, c, o.Info, o.Tools)
			if err != nil {
				return res, err
			}
			if w {
				warm = append(warm, d.Seconds())
				if st.PromptLoaded == 0 {
					return res, errors.New("bench: the warm prompt cache was not used")
				}
			} else {
				cold = append(cold, d.Seconds())
			}
			res.AgentPromptTokens, res.AgentPrefix = st.PromptTokens, max(res.AgentPrefix, st.PromptLoaded)
		}
	}
	res.FirstToken.Cold, res.FirstToken.Warm = spread(cold), spread(warm)

	progress("memory bandwidth", 0)
	res.MemoryGBs = MemoryBandwidth(max(o.Threads, 1)) / 1e9
	if o.ModelBytes > 0 {
		res.ModelBytes = o.ModelBytes
		res.DecodeCeiling = res.MemoryGBs * 1e9 / float64(o.ModelBytes)
	}
	return res, nil
}

// MemoryBandwidth measures a STREAM-like copy between two 512 MiB
// buffers (larger than server caches) split over threads goroutines: the
// best of five passes, in bytes read plus written per second.
func MemoryBandwidth(threads int) float64 {
	const size = 512 << 20
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	best := time.Duration(0)
	for range 5 {
		start := time.Now()
		done := make(chan struct{})
		part := size / threads
		for t := range threads {
			lo, hi := t*part, (t+1)*part
			if t == threads-1 {
				hi = size
			}
			go func() { copy(dst[lo:hi], src[lo:hi]); done <- struct{}{} }()
		}
		for range threads {
			<-done
		}
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	return 2 * size / best.Seconds()
}

// SpeedGrammar is the grammar of the decode-with-grammar test: the tool
// set's strict grammar (a call required) in the model's call format.
func SpeedGrammar(info agent.ModelInfo, tools []grammar.Tool) (*inference.Grammar, error) {
	g, err := grammar.ForTools(tools, agent.DetectFormat(info.Template), grammar.ToolOptions{ToolChoice: grammar.Required})
	if err != nil {
		return nil, err
	}
	return &inference.Grammar{GBNF: g.GBNF, Root: g.Root}, nil
}

// firstTokenEngine stops generation at the first token and notes when it
// came.
type firstTokenEngine struct {
	agent.Engine
	first time.Time
}

func (e *firstTokenEngine) Generate(ctx context.Context, req inference.Request, fn func(inference.Piece) error) (inference.Result, error) {
	return e.Engine.Generate(ctx, req, func(inference.Piece) error {
		e.first = time.Now()
		return inference.ErrStop
	})
}

// firstToken times an agent turn's first reply to its first token.
func firstToken(ctx context.Context, eng agent.Engine, info agent.ModelInfo, tools []grammar.Tool) (time.Duration, inference.Stats, error) {
	e := &firstTokenEngine{Engine: eng}
	start := time.Now()
	comp, err := agent.NewCompleter(e, info).Complete(ctx, agent.CompletionRequest{
		Messages: []agent.Message{{Role: agent.RoleUser, Content: FirstTokenRequest}},
		Tools:    tools,
		Sampling: inference.Sampling{Temperature: 0},
	})
	if err != nil {
		return 0, comp.Stats, err
	}
	if e.first.IsZero() {
		return 0, comp.Stats, errors.New("bench: the agent turn generated nothing")
	}
	return e.first.Sub(start), comp.Stats, nil
}

// SpeedRow is one line of the speed table.
type SpeedRow struct {
	Test   string
	Unit   string
	Spread Spread
}

// Rows lists the measurements as table rows.
func (r SpeedResult) Rows() []SpeedRow {
	return []SpeedRow{
		{fmt.Sprintf("pp%d", r.PromptTokens), "t/s", r.Prefill},
		{fmt.Sprintf("tg%d", r.GenTokens), "t/s", r.Decode},
		{fmt.Sprintf("tg%d grammar", r.GenTokens), "t/s", r.DecodeGrammar},
		{fmt.Sprintf("first token cold (%d-token prompt)", r.AgentPromptTokens), "s", r.FirstToken.Cold},
		{fmt.Sprintf("first token warm (%d cached)", r.AgentPrefix), "s", r.FirstToken.Warm},
	}
}

// ceiling describes decode against the memory bandwidth, or "".
func (r SpeedResult) ceiling() string {
	if r.DecodeCeiling <= 0 {
		return ""
	}
	return fmt.Sprintf("%s: memory copy %.1f GB/s with %d threads; %.0f MB of weights per token: decode ceiling %.0f t/s, tg%d median at %.0f %%",
		r.Runner, r.MemoryGBs, r.Threads, float64(r.ModelBytes)/1e6, r.DecodeCeiling, r.GenTokens, 100*r.Decode.Median/r.DecodeCeiling)
}

// WriteSpeedTable prints results as llama-bench-style rows.
func WriteSpeedTable(w io.Writer, results []SpeedResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "runner\tmodel\tthreads\ttest\tmin\tmedian\tmax\tunit")
	for _, r := range results {
		for _, row := range r.Rows() {
			f := "%.1f"
			if row.Unit == "s" {
				f = "%.2f"
			}
			if row.Spread == (Spread{}) {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t"+f+"\t"+f+"\t"+f+"\t%s\n", r.Runner, r.Model, r.Threads, row.Test,
				row.Spread.Min, row.Spread.Median, row.Spread.Max, row.Unit)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if c := r.ceiling(); c != "" {
			fmt.Fprintln(w, c)
		}
	}
	for _, r := range results {
		if r.SystemInfo != "" {
			fmt.Fprintf(w, "%s system_info: %s\n", r.Runner, strings.TrimSpace(r.SystemInfo))
		}
	}
	return nil
}

// WriteSpeedComparison prints the results, then for each result after
// the first the ratio of the first's medians to its medians (higher is
// better for the first: tokens/s over tokens/s, seconds under seconds).
func WriteSpeedComparison(w io.Writer, results []SpeedResult) error {
	if err := WriteSpeedTable(w, results); err != nil {
		return err
	}
	if len(results) < 2 {
		return nil
	}
	base := results[0]
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nratio\ttest\tmedian")
	for _, other := range results[1:] {
		br, or := base.Rows(), other.Rows()
		for i := range br {
			a, b := br[i].Spread.Median, or[i].Spread.Median
			if a == 0 || b == 0 {
				continue
			}
			r := a / b
			if br[i].Unit == "s" {
				r = b / a
			}
			fmt.Fprintf(tw, "%s / %s\t%s\t%.2fx\n", base.Runner, other.Runner, shortTest(br[i].Test), r)
		}
	}
	return tw.Flush()
}

func shortTest(t string) string {
	if i := strings.Index(t, " ("); i >= 0 {
		return t[:i]
	}
	return t
}

// TempCaches returns a Cache function for SpeedOptions that makes each
// cold cache in a new directory under dir with newCache, and removes
// them all when done is called.
func TempCaches(newCache func(dir string) inference.PrefixCache) (cache func(warm bool) (inference.PrefixCache, error), done func()) {
	var dirs []string
	var last inference.PrefixCache
	cache = func(warm bool) (inference.PrefixCache, error) {
		if warm && last != nil {
			return last, nil
		}
		d, err := os.MkdirTemp("", "offgrid-speed-cache")
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, d)
		last = newCache(d)
		return last, nil
	}
	return cache, func() {
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	}
}
