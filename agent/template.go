package agent

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"

	"github.com/offgrid-ai/offgrid/grammar"
)

// family is a known chat layout, used when a model has no chat template
// or gonja cannot render it.
type family string

const (
	chatML  family = "chatml"
	gemma   family = "gemma"
	llama3  family = "llama3"
	mistral family = "mistral"
)

// familyOf guesses the layout of a model from its architecture, template
// and special tokens.
func familyOf(info ModelInfo) family {
	arch := strings.ToLower(info.Architecture)
	switch {
	case strings.HasPrefix(arch, "gemma") || strings.Contains(info.Template, "<start_of_turn>"):
		return gemma
	case strings.Contains(info.Template, "<|start_header_id|>") || info.BOS == "<|begin_of_text|>":
		return llama3
	case strings.Contains(info.Template, "[INST]") || strings.HasPrefix(arch, "mistral") || strings.HasPrefix(arch, "mixtral"):
		return mistral
	}
	return chatML
}

// chatTemplate renders prompts for one model: its own Jinja template
// through gonja, or its family's layout.
type chatTemplate struct {
	info     ModelInfo
	tmpl     *exec.Template // nil: render the family layout
	family   family
	native   bool // the template renders tool definitions and calls itself
	now      func() time.Time
	warnings []string
}

// toolsRef finds templates that use a tools variable.
var toolsRef = regexp.MustCompile(`\btools\b`)

// newChatTemplate parses info.Template. A template that does not parse is
// replaced by the family layout with a warning.
func newChatTemplate(info ModelInfo, now func() time.Time) *chatTemplate {
	if now == nil {
		now = time.Now
	}
	t := &chatTemplate{info: info, family: familyOf(info), now: now}
	if strings.TrimSpace(info.Template) == "" {
		return t
	}
	if err := vetTemplate(info); err != nil {
		t.warnf("the model's chat template is refused (%v); using the %s layout", err, t.family)
		return t
	}
	tmpl, err := parseJinja(info.Template)
	if err != nil {
		t.warnf("the model's chat template does not parse (%v); using the %s layout", err, t.family)
		return t
	}
	t.tmpl = tmpl
	t.native = toolsRef.MatchString(info.Template)
	return t
}

func (t *chatTemplate) warnf(format string, args ...any) {
	t.warnings = append(t.warnings, fmt.Sprintf(format, args...))
}

// layoutName says how prompts are rendered, for messages.
func (t *chatTemplate) layoutName() string {
	if t.tmpl != nil {
		return "the model's chat template"
	}
	return "the " + string(t.family) + " layout"
}

// sourceLoader serves the one template and refuses includes, so a
// template cannot read files.
type sourceLoader struct{ src string }

const templateID = "chat_template"

func (l sourceLoader) Read(path string) (io.Reader, error) {
	if path != templateID {
		return nil, fmt.Errorf("chat templates may not include other templates (%q)", path)
	}
	return strings.NewReader(l.src), nil
}
func (l sourceLoader) Resolve(path string) (string, error)         { return path, nil }
func (l sourceLoader) Inherit(from string) (loaders.Loader, error) { return l, nil }

// parseJinja parses a chat template the way Hugging Face renders them
// (trim_blocks and lstrip_blocks on), with offgrid's tojson.
func parseJinja(src string) (tmpl *exec.Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: parser panicked: %v", ErrTemplate, p)
		}
	}()
	cfg := config.New()
	cfg.TrimBlocks = true
	cfg.LeftStripBlocks = true
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{})
	filters.Update(builtins.Filters)
	if err := filters.Replace("tojson", filterToJSON); err != nil {
		return nil, err
	}
	env := &exec.Environment{
		Context:           exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables),
		Filters:           filters,
		Tests:             builtins.Tests,
		ControlStructures: builtins.ControlStructures,
		Methods:           builtins.Methods,
	}
	tmpl, err = exec.NewTemplate(templateID, cfg, sourceLoader{src}, env)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTemplate, firstLine(err.Error()))
	}
	return tmpl, nil
}

// orderVar is the template variable holding the key order of the data.
const orderVar = "__offgrid_key_order"

// filterToJSON is Jinja's tojson as Hugging Face defines it for chat
// templates (json.dumps with ensure_ascii=False), keeping object keys in
// their original order.
func filterToJSON(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	order, _ := e.Environment.Context.Get(orderVar)
	ko, _ := order.(keyOrder)
	if ko == nil {
		ko = keyOrder{}
	}
	st := defaultJSONStyle()
	if v, ok := params.KwArgs["indent"]; ok && !v.IsNil() {
		if !v.IsInteger() {
			return exec.AsValue(errors.New("tojson: indent must be an integer"))
		}
		st.hasIndent, st.indent, st.itemSep = true, strings.Repeat(" ", v.Integer()), ","
	}
	if len(params.Args) > 0 && params.Args[0].IsInteger() { // tojson(2)
		st.hasIndent, st.indent, st.itemSep = true, strings.Repeat(" ", params.Args[0].Integer()), ","
	}
	if v, ok := params.KwArgs["separators"]; ok && v.IsList() && v.Len() == 2 {
		st.itemSep, st.keySep = v.Index(0).String(), v.Index(1).String()
	}
	if v, ok := params.KwArgs["sort_keys"]; ok {
		st.sortKeys = v.IsTrue()
	}
	if v, ok := params.KwArgs["ensure_ascii"]; ok {
		st.ensureASCII = v.IsTrue()
	}
	var sb strings.Builder
	if err := ko.encode(&sb, in.Interface(), st, 0); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsSafeValue(sb.String())
}

// render renders msgs with the model's Jinja template. tools is nil when
// no tools are offered.
func (t *chatTemplate) render(msgs []Message, tools []grammar.Tool, addGen bool) (out string, err error) {
	if t.tmpl == nil {
		return "", fmt.Errorf("%w: no template", ErrTemplate)
	}
	ko := keyOrder{}
	data, err := t.data(ko, msgs, tools, addGen)
	if err != nil {
		return "", err
	}
	var raised *string
	data["raise_exception"] = func(_ *exec.Evaluator, params *exec.VarArgs) (any, error) {
		msg := "raise_exception called"
		if len(params.Args) > 0 {
			msg = params.Args[0].String()
		}
		raised = &msg
		return nil, errors.New(msg)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("%w: renderer panicked: %v", ErrTemplate, p)
		}
	}()
	limits := newRenderLimits()
	data["range"] = limits.rangeFunc
	err = t.tmpl.Execute(limits, exec.NewContext(data))
	out = limits.sb.String()
	switch {
	case limits.hit != nil:
		return "", fmt.Errorf("%w: %w", ErrTemplate, limits.hit)
	case raised != nil:
		return "", fmt.Errorf("%w raised an exception: %s", ErrTemplate, *raised)
	case err != nil:
		return "", fmt.Errorf("%w: %s", ErrTemplate, firstLine(err.Error()))
	}
	return out, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// data builds the template variables Hugging Face chat templates expect.
func (t *chatTemplate) data(ko keyOrder, msgs []Message, tools []grammar.Tool, addGen bool) (map[string]any, error) {
	list := make([]any, 0, len(msgs))
	for _, m := range msgs {
		var obj map[string]any
		switch {
		case m.Role == RoleTool:
			obj = ko.object("role", m.Role, "content", m.Content, "tool_call_id", m.ToolCallID, "name", m.Name)
		case len(m.ToolCalls) > 0:
			calls := make([]any, 0, len(m.ToolCalls))
			for _, c := range m.ToolCalls {
				args, err := ko.decode(argsOrEmpty(c.Arguments))
				if err != nil {
					return nil, fmt.Errorf("agent: arguments of %s: %w", c.Name, err)
				}
				calls = append(calls, ko.object("id", c.ID, "type", "function",
					"function", ko.object("name", c.Name, "arguments", args)))
			}
			obj = ko.object("role", m.Role, "content", m.Content, "tool_calls", calls)
		default:
			obj = ko.object("role", m.Role, "content", m.Content)
		}
		list = append(list, obj)
	}
	data := map[string]any{
		"messages":              list,
		"add_generation_prompt": addGen,
		"bos_token":             t.info.BOS,
		"eos_token":             t.info.EOS,
		"strftime_now":          func(format string) string { return strftime(t.now(), format) },
		"date_string":           t.now().Format("02 Jan 2006"),
		orderVar:                ko,
	}
	if len(tools) > 0 {
		defs := make([]any, 0, len(tools))
		for _, tl := range tools {
			params, err := ko.decode(tl.Parameters)
			if err != nil {
				return nil, fmt.Errorf("agent: parameters of %s: %w", tl.Name, err)
			}
			defs = append(defs, ko.object("type", "function",
				"function", ko.object("name", tl.Name, "description", tl.Description, "parameters", params)))
		}
		data["tools"] = defs
	}
	return data, nil
}

func argsOrEmpty(a []byte) []byte {
	if len(strings.TrimSpace(string(a))) == 0 {
		return []byte("{}")
	}
	return a
}

// layout renders msgs, which must hold no tool calls or tool messages
// (see flatten), in the family's layout.
func (t *chatTemplate) layout(msgs []Message, addGen bool) string {
	var sb strings.Builder
	var system string
	if len(msgs) > 0 && msgs[0].Role == RoleSystem {
		system, msgs = msgs[0].Content, msgs[1:]
	}
	switch t.family {
	case gemma:
		// Gemma has no system turn: the system text opens the first user turn.
		sb.WriteString(t.info.BOS)
		for i, m := range msgs {
			role := "user"
			if m.Role == RoleAssistant {
				role = "model"
			}
			content := strings.TrimSpace(m.Content)
			if i == 0 && system != "" {
				content = strings.TrimSpace(system) + "\n\n" + content
			}
			fmt.Fprintf(&sb, "<start_of_turn>%s\n%s<end_of_turn>\n", role, content)
		}
		if len(msgs) == 0 && system != "" {
			fmt.Fprintf(&sb, "<start_of_turn>user\n%s<end_of_turn>\n", strings.TrimSpace(system))
		}
		if addGen {
			sb.WriteString("<start_of_turn>model\n")
		}
	case llama3:
		sb.WriteString(t.info.BOS)
		if system != "" {
			fmt.Fprintf(&sb, "<|start_header_id|>system<|end_header_id|>\n\n%s<|eot_id|>", strings.TrimSpace(system))
		}
		for _, m := range msgs {
			fmt.Fprintf(&sb, "<|start_header_id|>%s<|end_header_id|>\n\n%s<|eot_id|>", m.Role, strings.TrimSpace(m.Content))
		}
		if addGen {
			sb.WriteString("<|start_header_id|>assistant<|end_header_id|>\n\n")
		}
	case mistral:
		sb.WriteString(t.info.BOS)
		first := true
		for _, m := range msgs {
			content := strings.TrimSpace(m.Content)
			if m.Role == RoleAssistant {
				sb.WriteString(content + t.info.EOS)
				continue
			}
			if first && system != "" {
				content = strings.TrimSpace(system) + "\n\n" + content
			}
			first = false
			fmt.Fprintf(&sb, "[INST] %s [/INST]", content)
		}
	default:
		if system != "" {
			fmt.Fprintf(&sb, "<|im_start|>system\n%s<|im_end|>\n", system)
		}
		for _, m := range msgs {
			fmt.Fprintf(&sb, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
		}
		if addGen {
			sb.WriteString("<|im_start|>assistant\n")
		}
	}
	return sb.String()
}

// stops returns the texts that end a turn in the family's layout.
func (t *chatTemplate) stops() []string {
	var s []string
	switch t.family {
	case gemma:
		s = []string{"<end_of_turn>"}
	case llama3:
		s = []string{"<|eot_id|>", "<|eom_id|>"}
	case chatML:
		// A model that opens the next turn itself has ended its own.
		s = []string{"<|im_end|>", "<|im_start|>"}
	}
	if t.info.EOS != "" {
		s = append(s, t.info.EOS)
	}
	for _, e := range t.info.EOG {
		if e != "" && !contains(s, e) {
			s = append(s, e)
		}
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// strftime formats t with Python's strftime directives.
func strftime(t time.Time, format string) string {
	var sb strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'd':
			sb.WriteString(t.Format("02"))
		case '-':
			if i+1 < len(format) && format[i+1] == 'd' {
				i++
				sb.WriteString(t.Format("2"))
			} else {
				sb.WriteString("%-")
			}
		case 'm':
			sb.WriteString(t.Format("01"))
		case 'b':
			sb.WriteString(t.Format("Jan"))
		case 'B':
			sb.WriteString(t.Format("January"))
		case 'y':
			sb.WriteString(t.Format("06"))
		case 'Y':
			sb.WriteString(t.Format("2006"))
		case 'H':
			sb.WriteString(t.Format("15"))
		case 'I':
			sb.WriteString(t.Format("03"))
		case 'p':
			sb.WriteString(t.Format("PM"))
		case 'M':
			sb.WriteString(t.Format("04"))
		case 'S':
			sb.WriteString(t.Format("05"))
		case 'a':
			sb.WriteString(t.Format("Mon"))
		case 'A':
			sb.WriteString(t.Format("Monday"))
		case 'Z':
			sb.WriteString(t.Format("MST"))
		case 'z':
			sb.WriteString(t.Format("-0700"))
		case 'j':
			fmt.Fprintf(&sb, "%03d", t.YearDay())
		case '%':
			sb.WriteByte('%')
		default:
			sb.WriteByte('%')
			sb.WriteByte(format[i])
		}
	}
	return sb.String()
}
