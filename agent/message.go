package agent

import (
	"context"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
)

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of a conversation.
//
// An assistant message holds text, tool calls (each with an ID), or both.
// A tool message holds one call's result as ToolResult JSON (the
// model-facing copy; see ToolRecord for the user-facing one), with the
// ToolCallID and Name of the call it answers.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []grammar.Call
	ToolCallID string
	Name       string
	// Raw is the assistant reply exactly as generated. Prompts that carry
	// tool calls as plain text (models without native tool support) show
	// it verbatim, so the tokens already in the KV cache are reused.
	Raw string
}

// Engine is what the agent needs from a loaded model; *inference.Context
// satisfies it.
type Engine interface {
	Tokenize(text string, addSpecial, parseSpecial bool) ([]inference.Token, error)
	Generate(ctx context.Context, req inference.Request, fn func(inference.Piece) error) (inference.Result, error)
}

// ModelInfo is what the agent reads off the model once.
type ModelInfo struct {
	// Template is the GGUF's tokenizer.chat_template ("" when absent).
	Template string
	// BOS and EOS are the texts of the begin and end tokens.
	BOS, EOS string
	// Architecture is general.architecture, e.g. "llama" or "gemma3".
	Architecture string
	// Name is general.name.
	Name string
	// EOG lists the texts of end-of-generation tokens; optional. They are
	// used as stop strings in case the engine does not end on them.
	EOG []string
}
