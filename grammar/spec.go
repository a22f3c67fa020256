package grammar

import (
	"strings"
)

// Opening is one way a reply starts a tool call written as a JSON object:
// Open, the object, then Close. An empty Open is the bare object, which
// counts as a call only at the start of the reply or of a line.
type Opening struct {
	Open  string
	Close string
}

// spec is everything offgrid knows about one format: how a chat template
// shows that it teaches the format, how calls open in a reply, and the
// format's parser, renderer and grammar. Adding a format, or an opening to
// a format, is one edit here.
type spec struct {
	// markers in a chat template that show it teaches this format.
	markers []string
	// openings start a call written as a JSON object, the canonical one
	// (what the template teaches, Render writes and required mode forces)
	// first. Formats whose calls are not wrapped objects have none.
	openings []Opening
	// visible returns the user-visible prefix of a partial reply that
	// starts with a non-space character.
	visible func(s *spec, t string) string
	parse   func(s *spec, text string) (string, []Call, error)
	render  func(calls []Call) string
}

// hermesOpenings are the ways Qwen 2.5 (Coder) and Hermes models write a
// call: the template's <tool_call>, and what small models emit instead,
// collected from their replies (grammar off, and later turns of agent
// runs; see lenientReplies in spec_test.go): a ```json or ```tool_call
// fence, the object in double braces or parentheses, <tools> and
// <function_call> tags, and the bare object.
var hermesOpenings = []Opening{
	{"<tool_call>", "</tool_call>"},
	{"```json", "```"},
	{"```tool_call", "```"},
	{"```", "```"},
	{"{", "}"},
	{"(", ")"},
	{"<tools>", "</tools>"},
	{"<function_call>", "</function_call>"},
	{"", ""},
}

// detectOrder is the order DetectFormat tries the formats' markers in.
var detectOrder = []Format{Hermes, Mistral, Pythonic, Llama3}

// specOf returns the descriptor of format f.
func specOf(f Format) *spec {
	switch f {
	case Generic:
		return &spec{
			visible: func(_ *spec, t string) string {
				if t[0] == '{' {
					return jsonResponse(t)
				}
				return t
			},
			parse:  func(_ *spec, text string) (string, []Call, error) { return parseGeneric(text) },
			render: renderGeneric,
		}
	case Hermes:
		return &spec{
			markers:  []string{"<tool_call>"},
			openings: hermesOpenings,
			visible:  visibleBeforeCall,
			parse:    parseWrapped,
			render:   renderHermes,
		}
	case Llama3:
		return &spec{
			markers: []string{"<|python_tag|>", "ipython"},
			visible: func(_ *spec, t string) string {
				if t[0] == '{' || isPrefixEither(t, "<|python_tag|>") {
					return ""
				}
				return t
			},
			parse:  func(_ *spec, text string) (string, []Call, error) { return parseLlama3(text) },
			render: renderLlama3,
		}
	case Mistral:
		return &spec{
			markers: []string{"[TOOL_CALLS]"},
			visible: func(_ *spec, t string) string { return textBefore(t, "[TOOL_CALLS]") },
			parse:   func(_ *spec, text string) (string, []Call, error) { return parseMistral(text) },
			render:  renderMistral,
		}
	case Pythonic:
		return &spec{
			markers: []string{"[func_name", "```tool_code"},
			visible: func(_ *spec, t string) string {
				if t[0] == '[' || isPrefixEither(t, "```") {
					return ""
				}
				return t
			},
			parse:  func(_ *spec, text string) (string, []Call, error) { return parsePythonic(text) },
			render: renderPythonic,
		}
	}
	return nil
}

// DetectFormat chooses the tool-call format a chat template teaches its
// model from the markers in it: <tool_call> (hermes), [TOOL_CALLS]
// (mistral), a Python call list (pythonic), <|python_tag|> or ipython
// (llama3). A template without tool markers, or no template, is generic.
func DetectFormat(template string) Format {
	for _, f := range detectOrder {
		for _, m := range specOf(f).markers {
			if strings.Contains(template, m) {
				return f
			}
		}
	}
	return Generic
}

// Visible returns the part of a partial reply in format f that can be
// shown to the user while it is generated: the text before any call
// markup (held back while it may still become markup), or the answer
// inside a generic {"response": ...}.
func Visible(f Format, raw string) string {
	t := strings.TrimLeft(raw, " \t\r\n")
	s := specOf(f)
	if t == "" || s == nil {
		return ""
	}
	return s.visible(s, t)
}

// CallStart is where a call begins in a reply.
type CallStart struct {
	// Pos is the byte offset of the opening.
	Pos int
	// Opening is how the call opens.
	Opening Opening
	// Canonical reports whether it is the format's own marker.
	Canonical bool
}

// FindCall returns the first call opening in text: the opening, optional
// white space, then {"name". Partial reports an opening that the text
// ends inside of (more text may complete it) before any complete one.
func FindCall(f Format, text string) (start CallStart, ok, partial bool) {
	s := specOf(f)
	if s == nil || len(s.openings) == 0 {
		return CallStart{}, false, false
	}
	return s.findCall(text)
}

func (s *spec) findCall(text string) (CallStart, bool, bool) {
	for i := 0; i < len(text); i++ {
		lineStart := lineStartAt(text, i)
		for k, op := range s.openings {
			if op.Open == "" && !lineStart {
				continue
			}
			// The template's own marker needs nothing after it.
			m := matchOpening(text[i:], op.Open, k > 0 || op.Open == "")
			switch m {
			case matchFull:
				return CallStart{Pos: i, Opening: op, Canonical: k == 0}, true, false
			case matchPartial:
				return CallStart{Pos: i, Opening: op, Canonical: k == 0}, false, true
			}
		}
	}
	return CallStart{}, false, false
}

// lineStartAt reports whether only spaces or tabs stand between the start
// of text or of a line and position i.
func lineStartAt(text string, i int) bool {
	j := strings.LastIndexByte(text[:i], '\n')
	return strings.Trim(text[j+1:i], " \t") == ""
}

type match int

const (
	matchNone match = iota
	matchPartial
	matchFull
)

// matchOpening matches open at the start of s, followed, with object, by
// white space, "{", white space and "name" (with its quotes).
func matchOpening(s, open string, object bool) match {
	parts := []string{open}
	if object {
		parts = append(parts, "{", `"name"`)
	}
	for n, p := range parts {
		if n > 0 {
			s = strings.TrimLeft(s, " \t\r\n")
		}
		if len(s) < len(p) {
			if strings.HasPrefix(p, s) {
				return matchPartial
			}
			return matchNone
		}
		if !strings.HasPrefix(s, p) {
			return matchNone
		}
		s = s[len(p):]
	}
	return matchFull
}

// visibleBeforeCall is the text before the first call, holding back a
// tail that may still become one.
func visibleBeforeCall(s *spec, t string) string {
	if st, ok, partial := s.findCall(t); ok {
		return strings.TrimRight(t[:st.Pos], " \t\r\n")
	} else if partial {
		return t[:st.Pos]
	}
	return t
}

// parseWrapped reads every call written with one of the spec's openings;
// the rest of the text is content.
func parseWrapped(s *spec, text string) (string, []Call, error) {
	var content strings.Builder
	var calls []Call
	rest := text
	for {
		st, ok, _ := s.findCall(rest)
		if !ok {
			content.WriteString(rest)
			break
		}
		content.WriteString(rest[:st.Pos])
		what := st.Opening.Open
		if what == "" {
			what = "a call"
		}
		body := strings.TrimLeft(rest[st.Pos+len(st.Opening.Open):], " \t\r\n")
		// The call is read as JSON, not cut at the closing text: a string
		// argument may itself contain it.
		v, n, err := jsonPrefix(body)
		if err != nil {
			return "", nil, malformed("in %s: %v", what, err)
		}
		rest = strings.TrimLeft(body[n:], " \t\r\n")
		switch closing := st.Opening.Close; {
		case strings.HasPrefix(rest, closing):
			rest = rest[len(closing):]
		case rest == "": // the model stopped before the closing text
		case st.Canonical:
			return "", nil, malformed("in %s: %q after the call, want %s", what, head(rest, 20), closing)
		}
		c, err := callFromJSON(v)
		if err != nil {
			return "", nil, err
		}
		calls = append(calls, c)
	}
	return strings.TrimSpace(content.String()), calls, nil
}

// isPrefixEither reports whether a or b is a prefix of the other.
func isPrefixEither(a, b string) bool {
	n := min(len(a), len(b))
	return a[:n] == b[:n]
}

// textBefore returns the text before marker, holding back a tail that
// could be the start of marker.
func textBefore(t, marker string) string {
	if i := strings.Index(t, marker); i >= 0 {
		return strings.TrimRight(t[:i], " \t\r\n")
	}
	for k := min(len(marker)-1, len(t)); k > 0; k-- {
		if strings.HasSuffix(t, marker[:k]) {
			return t[:len(t)-k]
		}
	}
	return t
}

// TextOnly returns a grammar for a reply that is an answer in text, not a
// call: it is not empty, does not start with space or [, and holds no {,
// < or backquote anywhere, so no call opening of any format can appear.
func TextOnly() *ToolGrammar {
	return &ToolGrammar{Root: "root", GBNF: "root ::= [^{<`\\[ \\t\\r\\n] [^{<`\\x00]*\n"}
}

// FencedBlock returns a grammar for a reply that is one fenced block:
// a line of three backticks, maybe with one of blockLanguages, lines that
// do not start with three backticks, and the closing line of three
// backticks. Any word after the backticks, the 0.5B, asked for a file
// holding "hi there", wrote "```hithere" and an empty block.
func FencedBlock() *ToolGrammar {
	langs := make([]string, len(blockLanguages))
	for i, l := range blockLanguages {
		langs[i] = lit(l)
	}
	return &ToolGrammar{Root: "root", GBNF: `root ::= "` + "```" + `" lang? "\n" line* "` + "```" + `"
lang ::= ` + strings.Join(langs, " | ") + `
line ::= (text | "` + "`" + `" text | "` + "``" + `" text)? "\n"
text ::= [^` + "`" + `\n\x00] [^\n\x00]*
`}
}

// FencedBlockRest returns a grammar for the rest of a FencedBlock whose
// opening and first lines were written already: from the start of a line
// when atLineStart, else from within one.
func FencedBlockRest(atLineStart bool) *ToolGrammar {
	head := `[^\n\x00]* "\n" `
	if atLineStart {
		head = ""
	}
	return &ToolGrammar{Root: "root", GBNF: `root ::= ` + head + `line* "` + "```" + `"
line ::= (text | "` + "`" + `" text | "` + "``" + `" text)? "\n"
text ::= [^` + "`" + `\n\x00] [^\n\x00]*
`}
}

// blockLanguages are the languages a FencedBlock may name after its
// opening backticks.
var blockLanguages = []string{
	"bash", "c", "cpp", "csharp", "css", "csv", "diff", "dockerfile", "go", "html", "ini", "java", "javascript", "js",
	"json", "kotlin", "lua", "make", "makefile", "markdown", "md", "perl", "php", "plaintext", "powershell", "python",
	"py", "r", "ruby", "rust", "scala", "sh", "shell", "sql", "swift", "text", "toml", "ts", "tsv", "txt",
	"typescript", "xml", "yaml", "yml", "zsh",
}

// OneOf returns a grammar for a reply that is exactly one of choices,
// e.g. the letter of an option.
func OneOf(choices []string) *ToolGrammar {
	alts := make([]string, len(choices))
	for i, c := range choices {
		alts[i] = lit(c)
	}
	return &ToolGrammar{Root: "root", GBNF: "root ::= " + strings.Join(alts, " | ") + "\n"}
}

// MoreText returns a grammar for the rest of an answer in text that has
// begun: like TextOnly, but it may be empty and start with anything else.
func MoreText() *ToolGrammar {
	return &ToolGrammar{Root: "root", GBNF: "root ::= [^{<`\\x00]*\n"}
}

// CallName returns the tool name of the call that opens at st in text,
// once its string is complete: the opening, {, "name", :, then the name in
// quotes. ok is false while the text may still complete it; a name that
// is not a plain JSON string (escapes, a line break, over 64 bytes) is
// returned as "" with ok true: it cannot be told.
func CallName(text string, st CallStart) (name string, ok bool) {
	s := text[st.Pos+len(st.Opening.Open):]
	for _, p := range []string{"{", `"name"`, ":", `"`} {
		s = strings.TrimLeft(s, " \t\r\n")
		if len(s) < len(p) {
			return "", false
		}
		if !strings.HasPrefix(s, p) {
			return "", true
		}
		s = s[len(p):]
	}
	end := strings.IndexAny(s, "\"\\\n")
	switch {
	case end < 0 && len(s) <= 64:
		return "", false
	case end < 0 || end > 64 || s[end] != '"':
		return "", true
	}
	return s[:end], true
}
