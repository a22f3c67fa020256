package agent

import (
	"encoding/json"
	"math"

	"github.com/offgrid-ai/offgrid/inference"
)

// EventType names an Event.
type EventType string

// Event types, in the order a turn produces them.
const (
	EventToken      EventType = "token"       // Text: visible text of the reply
	EventToolCall   EventType = "tool_call"   // ID, Tool, Arguments
	EventPermission EventType = "permission"  // ID, Tool, Decision (allow/deny), Text: the answer
	EventToolResult EventType = "tool_result" // ID, Tool, Record
	EventFinal      EventType = "final"       // Text: the answer; Calls: the turn's calls
	EventError      EventType = "error"       // Text, Code
	EventStats      EventType = "stats"       // Stats of one reply
	EventWarning    EventType = "warning"     // Text
	EventCompact    EventType = "compact"     // Text, Compaction: the conversation was shortened to fit
)

// Event is something that happened during a turn, for display or, as
// one JSON object per line, for scripts.
type Event struct {
	Type      EventType       `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Decision  string          `json:"decision,omitempty"`
	Record    *ToolRecord     `json:"record,omitempty"`
	Calls     []ToolRecord    `json:"calls,omitempty"`
	Code      Code            `json:"code,omitempty"`
	Stats     *Stats          `json:"stats,omitempty"`
	// Compaction is set for EventCompact.
	Compaction *Compaction `json:"compaction,omitempty"`
	// ByAgent marks an EventToolCall offgrid made for the model
	// (Options.ReadFirst).
	ByAgent bool `json:"by_agent,omitempty"`
}

// Stats are the engine's counters for one reply, for display and --json.
type Stats struct {
	PromptTokens  int     `json:"prompt_tokens"`
	PromptReused  int     `json:"prompt_reused"`  // found in the KV cache
	PromptLoaded  int     `json:"prompt_loaded"`  // loaded from the prompt cache on disk
	PromptDecoded int     `json:"prompt_decoded"` // decoded for this reply
	Generated     int     `json:"generated"`
	PromptTPS     float64 `json:"prompt_tokens_per_second"`
	GenerateTPS   float64 `json:"generated_tokens_per_second"`
	// PromptSeconds is the time spent on the prompt: loading a cached
	// prefix and decoding the rest.
	PromptSeconds   float64 `json:"prompt_seconds"`
	GenerateSeconds float64 `json:"generate_seconds"`
}

func statsOf(s inference.Stats) *Stats {
	return &Stats{
		PromptTokens: s.PromptTokens, PromptReused: s.PromptReused, PromptLoaded: s.PromptLoaded, PromptDecoded: s.PromptDecoded,
		Generated: s.Generated, PromptTPS: round1(s.PromptTokensPerSecond()), GenerateTPS: round1(s.GenerateTokensPerSecond()),
		PromptSeconds: round3(s.PromptDuration.Seconds()), GenerateSeconds: round3(s.GenerateDuration.Seconds()),
	}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
