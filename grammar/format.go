package grammar

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// Format is how a model writes tool calls.
type Format string

const (
	// Generic is a JSON object for models whose chat template has no tool
	// support: {"tool_calls":[{"name":..,"arguments":{..}}]} or
	// {"response":".."}.
	Generic Format = "generic"
	// Hermes is <tool_call>\n{"name":..,"arguments":{..}}\n</tool_call>
	// (Qwen 2.5/3, Hermes).
	Hermes Format = "hermes"
	// Llama3 is {"name":..,"parameters":{..}} at the start of the reply
	// (Llama 3.1–3.3 JSON tool calling).
	Llama3 Format = "llama3"
	// Mistral is [TOOL_CALLS][{"name":..,"arguments":{..}}, ..].
	Mistral Format = "mistral"
	// Pythonic is [f(a=1, b="x"), ..] with Python literals (Gemma 3,
	// Llama 3.2 pythonic, BFCL prompt mode).
	Pythonic Format = "pythonic"
)

// Formats lists every format.
func Formats() []Format { return []Format{Generic, Hermes, Llama3, Mistral, Pythonic} }

// ParseFormat returns the Format named s.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("grammar: unknown format %q (want one of generic, hermes, llama3, mistral, pythonic)", s)
}

// ToolChoice says whether the model may, must or must not call a tool.
type ToolChoice string

const (
	Auto     ToolChoice = "auto"     // text or calls; lazy grammar where the format allows
	Required ToolChoice = "required" // calls only; the grammar applies from the first token
	None     ToolChoice = "none"     // no calls; no grammar
)

// ParseToolChoice returns the ToolChoice named s.
func ParseToolChoice(s string) (ToolChoice, error) {
	switch c := ToolChoice(s); c {
	case Auto, Required, None:
		return c, nil
	}
	return "", fmt.Errorf("grammar: unknown tool choice %q (want auto, required or none)", s)
}

// ToolOptions configures ForTools.
type ToolOptions struct {
	ToolChoice ToolChoice // "" means Auto
	// Parallel allows several calls in one reply; otherwise exactly one.
	Parallel bool
	// MaxCalls caps the calls in one reply when Parallel; 0 means no cap.
	MaxCalls int
	// Schema tunes the argument grammars.
	Schema SchemaOptions
	// Opening, for formats that wrap each call (see FindCall), forces
	// calls written in this wrapper from the first token, as when the
	// reply so far ended where the model opened a call this way.
	Opening *Opening
	// AnyOpening, with Required and a format that wraps each call, admits
	// every opening the format knows instead of the canonical one alone:
	// a reply made to call from its first token then opens the call the
	// way the model itself would (small models forced into the
	// template's tag write other arguments). Opening takes precedence.
	AnyOpening bool
}

// ToolGrammar is the grammar of a model's reply for a tool set.
type ToolGrammar struct {
	// GBNF is empty when no grammar applies (ToolChoice None).
	GBNF string
	Root string
	// TriggerPatterns make the grammar lazy (llama.cpp's convention): each
	// is matched against the whole generated text; on a match the grammar
	// applies from the first capture group on, earlier text is free.
	TriggerPatterns []string
	// TriggerWords are literal texts that start the grammar; an engine
	// turns those that are single special tokens into trigger tokens.
	TriggerWords []string
	// Warnings lists schema keywords the grammar does not enforce,
	// prefixed with the tool name.
	Warnings []string
}

// Lazy reports whether text may precede the grammar.
func (g *ToolGrammar) Lazy() bool { return len(g.TriggerPatterns) > 0 || len(g.TriggerWords) > 0 }

// ForTools returns the grammar that constrains a reply in format f to
// valid calls of tools: the name is one of the tool names and the
// arguments follow that tool's schema.
func ForTools(tools []Tool, f Format, opts ToolOptions) (*ToolGrammar, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, err
	}
	choice := opts.ToolChoice
	if choice == "" {
		choice = Auto
	}
	if _, err := ParseToolChoice(string(choice)); err != nil {
		return nil, err
	}
	if choice == None {
		return &ToolGrammar{}, nil
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("%w: no tools", ErrTools)
	}
	b := newBuilder(opts.Schema, f == Pythonic)
	root := b.reserve("root")
	ws := b.ws()
	tg := &ToolGrammar{Root: root}

	var calls []string
	var names []string
	for _, t := range tools {
		names = append(names, regexp.QuoteMeta(t.Name))
		params, err := jsonx.Parse(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrSchema, t.Name, err)
		}
		b.root = params
		b.refs = map[string]string{}
		nw := len(b.warnings)
		base := ruleName(t.Name)
		var call string
		if f == Pythonic {
			inner, free, err := b.members(params, "", base+"-args",
				func(k string) string { return lit(k + "=") }, seq(`","`, ws))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", t.Name, err)
			}
			if free != "" {
				b.warnf("", "free-form arguments are not generated: the call has none")
				inner = ""
			}
			call = b.rule("call-"+base, seq(lit(t.Name+"("), inner, `")"`))
		} else {
			args, err := b.schema(params, "", base+"-args")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", t.Name, err)
			}
			argKey := `"\"arguments\":"`
			if f == Llama3 {
				argKey = `"\"parameters\":"`
			}
			id := ""
			if f == Mistral {
				id = b.fixed("call-id", seq(`( ","`, ws, `"\"id\":"`, ws, `"\"" [a-zA-Z0-9]{9} "\"" )?`))
			}
			call = b.rule("call-"+base, seq(`"{"`, ws, `"\"name\":"`, ws, lit(string(jsonx.AppendString(nil, t.Name))), `","`, ws,
				argKey, ws, args, id, ws, `"}"`))
		}
		for _, w := range b.warnings[nw:] {
			tg.Warnings = append(tg.Warnings, t.Name+": "+w)
		}
		calls = append(calls, call)
	}
	call := calls[0]
	if len(calls) > 1 {
		call = b.rule("call", strings.Join(calls, " | "))
	}
	n := 1
	if opts.Parallel {
		n = opts.MaxCalls
		if n <= 0 {
			n = -1
		}
	}
	var body string
	switch f {
	case Generic:
		body = seq(`"{"`, ws, `"\"tool_calls\":"`, ws, `"["`, ws, b.list(call, 1, n), ws, `"]"`, ws, `"}"`)
		if choice == Auto {
			body = seq("( "+body, `| "{"`, ws, `"\"response\":"`, ws, b.str(), ws, `"}" )`)
		}
	case Hermes:
		ops := hermesOpenings[:1]
		if opts.Opening != nil {
			ops = []Opening{*opts.Opening}
		} else if opts.AnyOpening && choice == Required {
			ops = hermesOpenings
		}
		var wrapped []string
		for _, op := range ops {
			if op.Open == "" {
				wrapped = append(wrapped, call)
			} else {
				wrapped = append(wrapped, seq(lit(op.Open), ws, call, ws, lit(op.Close)))
			}
		}
		tc := call
		if len(wrapped) > 1 || ops[0].Open != "" {
			tc = b.rule("tool-call", strings.Join(wrapped, " | "))
		}
		body = seq(ws, tc, b.repeat("tool-calls", "( "+seq(ws, tc)+" )", 0, dec(n)))
		tg.TriggerPatterns = []string{`[\s\S]*?(` + regexp.QuoteMeta(ops[0].Open) + `[\s\S]*)`}
		tg.TriggerWords = []string{ops[0].Open}
	case Llama3:
		sep := `( ";" " "? | "\n" )`
		body = seq(ws, call, b.repeat("calls", "( "+seq(sep, call)+" )", 0, dec(n)))
		tg.TriggerPatterns = []string{fmt.Sprintf(`\s*(\{(?: |\n[ \t]{0,%d})?"name"[\s\S]*)`, maxIndent)}
	case Mistral:
		body = seq(`"[TOOL_CALLS]"`, `"["`, ws, b.list(call, 1, n), ws, `"]"`)
		tg.TriggerPatterns = []string{`[\s\S]*?(\[TOOL_CALLS\][\s\S]*)`}
		tg.TriggerWords = []string{"[TOOL_CALLS]"}
	case Pythonic:
		body = seq(ws, `"["`, b.list(call, 1, n), `"]"`)
		tg.TriggerPatterns = []string{`\s*(\[(?:` + strings.Join(names, "|") + `)\([\s\S]*)`}
	}
	if choice == Required || f == Generic || opts.Opening != nil {
		tg.TriggerPatterns, tg.TriggerWords = nil, nil
	}
	b.define(root, body)
	tg.GBNF = b.gbnf(root)
	if err := selfCheck(tg.GBNF); err != nil {
		return nil, err
	}
	return tg, nil
}

// dec is n-1, keeping "unbounded" (-1) unbounded.
func dec(n int) int {
	if n < 0 {
		return -1
	}
	return n - 1
}
