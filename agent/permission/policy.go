package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/offgrid-ai/offgrid/tools"
)

// Verdict is a policy's decision about one call.
type Verdict int

const (
	Allow Verdict = iota // run the call
	Deny                 // refuse it with permission_denied
	Ask                  // ask the user, then Record the answer
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	case Ask:
		return "ask"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Answer is the user's reply to a permission prompt.
type Answer int

const (
	// DenyOnce refuses this call; the next one asks again. It is the zero
	// value, so an unanswered prompt denies.
	DenyOnce Answer = iota
	// AllowOnce runs this call only.
	AllowOnce
	// AllowSession runs every call to this tool until the program exits.
	AllowSession
	// AlwaysAllow runs every call to this tool, now and in later sessions
	// (remembered in the policies file).
	AlwaysAllow
)

func (a Answer) String() string {
	switch a {
	case DenyOnce:
		return "Deny"
	case AllowOnce:
		return "Allow once"
	case AllowSession:
		return "Allow for this session"
	case AlwaysAllow:
		return "Always allow"
	}
	return fmt.Sprintf("Answer(%d)", int(a))
}

// Allowed reports whether the answer lets the call run.
func (a Answer) Allowed() bool { return a != DenyOnce }

// Config is what the user decided beforehand, e.g. with command-line
// flags.
type Config struct {
	// AllowAll allows every call (--yes). Deny still wins.
	AllowAll bool
	// Allow lists tools allowed without asking (--allow NAME).
	Allow []string
	// Deny lists tools always refused (--deny NAME); it wins over
	// everything else.
	Deny []string
	// MaxRisk allows every tool up to this risk without asking
	// (--max-risk); the zero value, Safe, is the default behaviour.
	MaxRisk tools.Risk
	// Interactive says a user can be asked. When false, calls that would
	// ask are denied instead, so nothing waits for an answer that cannot
	// come.
	Interactive bool
	// File is the policies file holding "always allow" rules (see
	// DefaultFile); empty means nothing is remembered across sessions.
	File string
}

// Policy decides about calls. It is safe for concurrent use.
type Policy struct {
	cfg     Config
	mu      sync.Mutex
	session map[string]bool // tools allowed for this session
	rules   []Rule          // from the policies file
	corrupt error           // why the policies file could not be read
}

// New returns a policy for cfg, with the rules of cfg.File. A policies file
// that cannot be read or parsed does not stop the policy: New returns a
// working Policy without remembered rules (so those tools ask) together
// with an error wrapping ErrPolicyFile, which callers should show as a
// warning. The file is then never overwritten.
func New(cfg Config) (*Policy, error) {
	p := &Policy{cfg: cfg, session: map[string]bool{}}
	if cfg.File == "" {
		return p, nil
	}
	f, err := readFile(cfg.File)
	if err != nil {
		p.corrupt = err
		return p, err
	}
	p.rules = f.Rules
	return p, nil
}

// Evaluate decides about a call to tool with the given arguments (an
// object or a JSON string holding one). In order: a denied tool is denied;
// --yes, an allowed tool, a risk within MaxRisk, an answer for this session
// or a remembered rule allow; otherwise the user is asked, or, with no one
// to ask, the call is denied.
func (p *Policy) Evaluate(tool *tools.Tool, args json.RawMessage) Verdict {
	v, _ := p.evaluate(tool, args)
	return v
}

func (p *Policy) evaluate(tool *tools.Tool, args json.RawMessage) (Verdict, string) {
	name := tool.Name
	switch {
	case slices.Contains(p.cfg.Deny, name):
		return Deny, fmt.Sprintf("the user denied permission to run %s (--deny %s)", name, name)
	case p.cfg.AllowAll, slices.Contains(p.cfg.Allow, name), tool.Risk <= p.cfg.MaxRisk:
		return Allow, ""
	}
	p.mu.Lock()
	session, rules := p.session[name], p.rules
	p.mu.Unlock()
	if session {
		return Allow, ""
	}
	if len(rules) > 0 {
		if obj, err := decodeArgs(args); err == nil {
			for _, r := range rules {
				if r.Matches(name, obj) {
					return Allow, ""
				}
			}
		}
	}
	if !p.cfg.Interactive {
		return Deny, fmt.Sprintf("%s is a %s-risk tool and there is no terminal to ask the user for permission; "+
			"the user can allow it with --yes, --allow %s or --max-risk %s", name, tool.Risk, name, tool.Risk)
	}
	return Ask, ""
}

// Record stores the user's answer about a call to tool: AllowSession
// allows the tool for the rest of the session; AlwaysAllow also adds a rule
// for the tool to the policies file (written atomically, mode 0600).
// AllowOnce and DenyOnce leave no trace. An error means the rule could not
// be saved; the session allowance still holds.
func (p *Policy) Record(tool *tools.Tool, args json.RawMessage, a Answer) error {
	switch a {
	case AllowOnce, DenyOnce:
		return nil
	case AllowSession, AlwaysAllow:
	default:
		return fmt.Errorf("permission: unknown answer %d", int(a))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.session[tool.Name] = true
	if a != AlwaysAllow {
		return nil
	}
	if p.cfg.File == "" {
		return errors.New("permission: no policies file to remember the answer in")
	}
	if p.corrupt != nil {
		return fmt.Errorf("permission: not saving the rule for %s, to keep the unreadable policies file: %w", tool.Name, p.corrupt)
	}
	rules, err := addRule(p.cfg.File, Rule{Tool: tool.Name})
	if err != nil {
		return err
	}
	p.rules = rules
	return nil
}

// ErrDenied is wrapped by Authorize's refusals.
var ErrDenied = errors.New("permission denied")

// Authorize evaluates a call and, when the policy says Ask, asks with
// prompter and records the answer. It returns nil when the call may run,
// or an error wrapping ErrDenied whose text tells the model why not. A
// failure to save an "always" answer does not deny the call; it is
// returned through warn when warn is non-nil.
func (p *Policy) Authorize(ctx context.Context, prompter Prompter, tool *tools.Tool, args json.RawMessage, warn func(error)) error {
	v, reason := p.evaluate(tool, args)
	switch v {
	case Allow:
		return nil
	case Deny:
		return fmt.Errorf("%w: %s", ErrDenied, reason)
	}
	if prompter == nil {
		return fmt.Errorf("%w: %s needs the user's permission and no one can be asked", ErrDenied, tool.Name)
	}
	norm, err := tools.NormalizeArgs(args)
	if err != nil {
		norm = args
	}
	a, err := prompter.Ask(ctx, Request{Tool: tool.Name, Description: tool.Description, Risk: tool.Risk, Args: norm})
	if err != nil {
		return fmt.Errorf("%w: asking the user about %s failed: %v", ErrDenied, tool.Name, err)
	}
	if err := p.Record(tool, args, a); err != nil && warn != nil {
		warn(err)
	}
	if !a.Allowed() {
		return fmt.Errorf("%w: the user refused to let %s run with these arguments", ErrDenied, tool.Name)
	}
	return nil
}

// decodeArgs returns a call's arguments as a map.
func decodeArgs(args json.RawMessage) (map[string]any, error) {
	norm, err := tools.NormalizeArgs(args)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(norm, &m); err != nil {
		return nil, err
	}
	return m, nil
}
