package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Tool is one function the model may call.
type Tool struct {
	// Name is the function name the model uses: letters, digits, '_' and
	// '-', at most 64 bytes.
	Name string
	// Description tells the model what the tool does.
	Description string
	// Parameters is the JSON Schema of the arguments object, with
	// properties in declaration order.
	Parameters json.RawMessage
	// Risk decides whether the user is asked before the tool runs.
	Risk Risk
	// Run executes a call. args is a JSON object that has passed schema
	// validation, with absent top-level arguments set to their defaults.
	// Return an [*Error] (see [Errorf]) to choose the wire error type.
	Run func(ctx context.Context, args json.RawMessage) (string, error)
	// Examples show the model requests this tool serves and the call to
	// make first (see package agent's Options.ToolExamples); optional.
	Examples []Example
	// Topic, if set, names the kind of request the tool serves (the
	// built-in ones: TopicFiles, TopicClock, TopicTasks, TopicCommands):
	// an agent may offer the tool only once a request needs that topic
	// (package agent's Options.ToolsByTopic). A tool without a topic is
	// always offered.
	Topic string

	schema   *jsonschema.Schema
	order    []string                   // top-level property names in order
	defaults map[string]json.RawMessage // top-level defaults
}

// Example is a request and the first call that serves it.
type Example struct {
	// Request is what a user might ask.
	Request string
	// Tool is the tool to call first; "" means the tool the example
	// belongs to.
	Tool string
	// Arguments of that call, a JSON object.
	Arguments json.RawMessage
	// Then, if set, says in a few words what comes after the call.
	Then string
}

// New builds a tool whose arguments are the struct Args; the schema is
// derived from the struct (see [SchemaFor]) and each call's arguments are
// decoded into an Args before fn runs.
func New[Args any](name, description string, risk Risk, fn func(ctx context.Context, args Args) (string, error)) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("tool %q: nil function", name)
	}
	params, err := SchemaFor[Args]()
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	t := &Tool{
		Name: name, Description: description, Parameters: params, Risk: risk,
		Run: func(ctx context.Context, raw json.RawMessage) (string, error) {
			var a Args
			if err := json.Unmarshal(raw, &a); err != nil {
				return "", Errorf(TypeValidationFailed, "arguments do not fit %s: %w", name, err)
			}
			return fn(ctx, a)
		},
	}
	if err := t.compile(); err != nil {
		return nil, err
	}
	return t, nil
}

// OpenAI returns the tool in the OpenAI tools-array shape:
// {"type":"function","function":{"name","description","parameters"}}.
func (t *Tool) OpenAI() json.RawMessage {
	b, _ := json.Marshal(struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}{Type: "function", Function: struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}{t.Name, t.Description, t.Parameters}})
	return b
}

// ErrInvalidTool is wrapped by registration errors.
var ErrInvalidTool = errors.New("invalid tool")

// compile checks the tool's definition and compiles its schema.
func (t *Tool) compile() error {
	if err := checkName(t.Name); err != nil {
		return err
	}
	if t.Run == nil {
		return fmt.Errorf("%w %q: nil Run", ErrInvalidTool, t.Name)
	}
	if t.Risk < Safe || t.Risk > High {
		return fmt.Errorf("%w %q: risk %d out of range", ErrInvalidTool, t.Name, int(t.Risk))
	}
	if len(t.Parameters) == 0 {
		t.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	order, defaults, err := properties(t.Parameters)
	if err != nil {
		return fmt.Errorf("%w %q: parameters: %v", ErrInvalidTool, t.Name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytesReader(t.Parameters))
	if err != nil {
		return fmt.Errorf("%w %q: parameters: %v", ErrInvalidTool, t.Name, err)
	}
	c := jsonschema.NewCompiler()
	url := "offgrid:///tools/" + t.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Errorf("%w %q: parameters: %v", ErrInvalidTool, t.Name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("%w %q: parameters: %v", ErrInvalidTool, t.Name, err)
	}
	t.schema = sch
	t.order = order
	t.defaults = defaults
	return nil
}

func checkName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("%w %q: name must be 1 to 64 bytes", ErrInvalidTool, name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("%w %q: name may hold only letters, digits, '_' and '-'", ErrInvalidTool, name)
		}
	}
	return nil
}
