package inference

import (
	"errors"
	"time"
)

// Token is a vocabulary id.
type Token = int32

// Errors callers branch on.
var (
	// ErrClosed is returned when a closed Model or Context is used.
	ErrClosed = errors.New("inference: use of closed model or context")
	// ErrContextFull is returned when a prompt does not fit in the context window.
	ErrContextFull = errors.New("inference: prompt does not fit in the context window")
	// ErrInvalidGrammar is returned when llama.cpp's grammar parser rejects a grammar.
	ErrInvalidGrammar = errors.New("inference: invalid grammar")
	// ErrInvalidToken is returned when a prompt holds a token outside the vocabulary.
	ErrInvalidToken = errors.New("inference: token outside the vocabulary")
	// ErrNonFinite is returned when the model computes NaN or infinite
	// logits, as broken weights do.
	ErrNonFinite = errors.New("inference: the model produced NaN or infinite logits")
)

// ModelOptions configures Load.
type ModelOptions struct {
	// GPULayers is the number of layers to offload to a GPU backend
	// (-ngl). Zero keeps everything on the CPU; -1 offloads all layers.
	GPULayers int
	// NoMmap reads the file into memory instead of mapping it.
	NoMmap bool
	// VocabOnly loads only the vocabulary and metadata (no weights).
	VocabOnly bool
}

// ContextOptions configures Model.NewContext.
type ContextOptions struct {
	// ContextSize is the context window in tokens. Zero means the model's
	// training context capped at 4096.
	ContextSize int
	// BatchSize is the maximum number of tokens decoded in one call. Zero means 512.
	BatchSize int
	// Threads is the number of CPU threads. Zero means the number of
	// physical cores.
	Threads int
}

// Sampling configures the sampler chain of one request.
type Sampling struct {
	// Temperature scales the logits; 0 picks the most likely token (greedy).
	Temperature float32
	// TopK keeps the K most likely tokens; 0 disables it.
	TopK int
	// TopP keeps the smallest set of tokens whose probability reaches P; 0 or 1 disables it.
	TopP float32
	// MinP drops tokens less likely than MinP times the best token; 0 disables it.
	MinP float32
	// RepeatPenalty penalizes recently seen tokens; 0 or 1 disables it.
	RepeatPenalty float32
	// RepeatLastN is how many recent tokens the penalty looks at (default 64).
	RepeatLastN int
	// Seed seeds the random sampler.
	Seed uint32
}

// DefaultSampling returns llama.cpp's usual defaults.
func DefaultSampling() Sampling {
	return Sampling{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, RepeatPenalty: 1, RepeatLastN: 64}
}

// Grammar constrains generation to a GBNF grammar.
//
// A grammar with no triggers is strict: it applies from the first generated
// token. With TriggerPatterns or TriggerTokens it is lazy: text is free
// until a trigger appears, and from there on it must follow the grammar.
type Grammar struct {
	// GBNF is the grammar text in llama.cpp's GBNF notation.
	GBNF string
	// Root is the start rule; empty means "root".
	Root string
	// TriggerPatterns are regular expressions matched against the whole
	// generated text; the grammar is fed the text from the first match
	// group (or the whole match) on.
	TriggerPatterns []string
	// TriggerTokens start the grammar when generated; the token itself is
	// fed to the grammar.
	TriggerTokens []Token
}

// Lazy reports whether the grammar waits for a trigger.
func (g *Grammar) Lazy() bool {
	return g != nil && (len(g.TriggerPatterns) > 0 || len(g.TriggerTokens) > 0)
}

// GrammarMode chooses how the grammar is applied during sampling.
type GrammarMode int

const (
	// GrammarSampleFirst samples without the grammar and applies the grammar
	// to the whole vocabulary only when the chosen token is rejected. This is
	// llama.cpp's fast path and the default.
	GrammarSampleFirst GrammarMode = iota
	// GrammarFullVocab applies the grammar to every candidate before each
	// sample. Slower; kept to measure the difference.
	GrammarFullVocab
)

// Request is one generation.
type Request struct {
	// Prompt is the full token sequence to continue. Tokens already in the
	// context's KV cache (a shared prefix with the previous request) are not
	// decoded again.
	Prompt []Token
	// MaxTokens caps the generated tokens; 0 generates until an end token,
	// a stop string, or the end of the context window.
	MaxTokens int
	// Stop ends generation when the text contains one of these strings. The
	// stop string is not part of the result.
	Stop []string
	// Sampling configures the sampler chain.
	Sampling Sampling
	// Grammar, when set, constrains the output.
	Grammar *Grammar
	// GrammarMode picks how the grammar is applied.
	GrammarMode GrammarMode
	// Prefix, when between 0 and len(Prompt), is the length of a leading
	// part of Prompt that other conversations share (the system prompt
	// and the tool definitions). It is decoded apart from the rest, so
	// its keys and values are the same whether decoded or loaded, and a
	// Context with a PrefixCache loads it from there or saves it there.
	Prefix int
	// FirstProb asks for Result.FirstProb: how sure the model was of its
	// first token (a choice among a grammar's options).
	FirstProb bool
	// Alternatives, when positive, asks for Result.Steps: at each
	// generated token, its probability and the Alternatives most probable
	// other tokens.
	Alternatives int
}

// Step is one generated token as the model saw it (Request.Alternatives):
// its probability and the most probable other tokens, at temperature 1
// and without the grammar.
type Step struct {
	Token Token
	// Text is the token's piece (a multi-byte character may be split
	// between tokens).
	Text string
	Prob float64
	Alts []Alt
}

// Alt is a token the model could have generated instead, with its
// probability.
type Alt struct {
	Token Token
	Text  string
	Prob  float64
}

// PrefixCache keeps the KV states of prompt prefixes (Request.Prefix)
// between processes. Load returns a state that Save was given for the
// same layout (Context.Layout) and tokens, or false; implementations
// check what they read back and drop what does not match. Save may keep
// or drop the state; it reports its own failures.
type PrefixCache interface {
	Load(layout string, prefix []Token) ([]byte, bool)
	Save(layout string, prefix []Token, state []byte)
}

// Piece is a streamed part of the output: one token and the text that can be
// shown for it. Text is empty while a multi-byte character or a possible stop
// string is incomplete; it is then delivered with a later piece.
type Piece struct {
	Token Token
	Text  string
}

// StopReason tells why generation ended.
type StopReason string

// Stop reasons.
const (
	StopEOG         StopReason = "eog"          // the model emitted an end-of-generation token
	StopMaxTokens   StopReason = "max_tokens"   // Request.MaxTokens reached
	StopString      StopReason = "stop_string"  // a Request.Stop string appeared
	StopContextFull StopReason = "context_full" // the context window is full
	StopCancelled   StopReason = "cancelled"    // the context.Context was cancelled
	StopCallback    StopReason = "callback"     // the callback returned ErrStop
)

// ErrStop may be returned by a Generate callback to end generation early
// without an error.
var ErrStop = errors.New("inference: stop requested")

// Result is the outcome of one request.
type Result struct {
	// Tokens are the generated tokens (without the end token or stop string).
	Tokens []Token
	// Text is the generated text (without the stop string).
	Text string
	// StopReason tells why generation ended.
	StopReason StopReason
	// FirstProb, when Request.FirstProb asked for it, is the probability
	// the model gave the first generated token among the tokens the
	// grammar allowed (all, without one), at temperature 1; otherwise, or
	// when it could not be computed, 0.
	FirstProb float64
	// Steps, when Request.Alternatives asked for them, are the generated
	// tokens (with a final end token) and their alternatives.
	Steps []Step
	// Stats holds the counters of this request.
	Stats Stats
}

// Stats counts the work of one request.
type Stats struct {
	// PromptTokens is the length of Request.Prompt.
	PromptTokens int
	// PromptReused counts prompt tokens found in the KV cache (not decoded).
	PromptReused int
	// PromptLoaded counts prompt tokens whose state was loaded from the
	// Context's PrefixCache instead of decoded.
	PromptLoaded int
	// PromptDecoded counts prompt tokens decoded by this request.
	PromptDecoded int
	// Generated counts sampled tokens, including a final end token.
	Generated int
	// GrammarResamples counts tokens that the sample-first path had to
	// re-sample because the grammar rejected the first choice.
	GrammarResamples int
	// PromptDuration is the time spent on the prompt: loading a cached
	// prefix and decoding.
	PromptDuration time.Duration
	// GenerateDuration is the time spent generating after the prompt.
	GenerateDuration time.Duration
}

// PromptTokensPerSecond is the prefill speed.
func (s Stats) PromptTokensPerSecond() float64 {
	return perSecond(s.PromptDecoded, s.PromptDuration)
}

// GenerateTokensPerSecond is the decode speed.
func (s Stats) GenerateTokensPerSecond() float64 {
	return perSecond(s.Generated, s.GenerateDuration)
}

func perSecond(n int, d time.Duration) float64 {
	if n == 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
