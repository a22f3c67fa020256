package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

// State is where the Executor is with the calls of one reply.
type State int

const (
	// Idle: no calls loaded.
	Idle State = iota
	// EvaluatingPolicy: the next call is checked (tool exists, arguments
	// are an object, the policy's verdict).
	EvaluatingPolicy
	// AwaitingPermission: the caller must ask the user and call Answer.
	AwaitingPermission
	// Executing: the caller must run the call and call Finish.
	Executing
	// Completed: every call of the reply has a result.
	Completed
)

var stateNames = [...]string{"idle", "evaluating_policy", "awaiting_permission", "executing", "completed"}

func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Action is what the caller must do after Tick.
type Action int

const (
	// ActionContinue: every call has a result; feed them to the model.
	ActionContinue Action = iota
	// ActionPrompt: ask the user about Step.Call, then call Answer.
	ActionPrompt
	// ActionExecute: run Step.Call, then call Finish.
	ActionExecute
	// ActionStop: a limit was reached (Step.Err); the turn ends.
	ActionStop
)

var actionNames = [...]string{"continue", "prompt", "execute", "stop"}

func (a Action) String() string {
	if a >= 0 && int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Step is Tick's answer.
type Step struct {
	Action Action
	Call   *Pending // for ActionPrompt and ActionExecute
	Err    *Error   // for ActionStop
}

// Policy decides about calls in two steps, so the Executor can pause to
// ask the user; *permission.Policy satisfies it.
type Policy interface {
	Evaluate(tool *tools.Tool, args json.RawMessage) permission.Verdict
	Record(tool *tools.Tool, args json.RawMessage, a permission.Answer) error
}

// Pending is one call on its way through the Executor.
type Pending struct {
	Call grammar.Call
	// Tool is nil when the model named an unknown tool.
	Tool *tools.Tool
	// Asked reports whether the user was asked; Answer is the reply.
	Asked  bool
	Answer permission.Answer
	// Denied reports a refusal by the policy or the user.
	Denied bool
	// Result is the outcome the model reads; Code classifies a failure.
	Result tools.Result
	Code   Code
	// Duration is the wall time of the call, permission prompt excluded.
	Duration time.Duration
	done     bool
}

// Limits bound the work of one turn (one user message).
type Limits struct {
	// MaxToolCalls caps the calls in one reply (default 15).
	MaxToolCalls int
	// MaxIterations caps the rounds of tool calls per turn (default 10).
	MaxIterations int
	// MaxRetries is how many times a failed call (unknown tool, invalid
	// arguments) may be retried before the turn ends (default 2; a
	// negative value allows no retry).
	MaxRetries int
}

// DefaultLimits are the limits of `offgrid run`.
func DefaultLimits() Limits { return Limits{MaxToolCalls: 15, MaxIterations: 10, MaxRetries: 2} }

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxToolCalls <= 0 {
		l.MaxToolCalls = d.MaxToolCalls
	}
	if l.MaxIterations <= 0 {
		l.MaxIterations = d.MaxIterations
	}
	switch {
	case l.MaxRetries == 0:
		l.MaxRetries = d.MaxRetries
	case l.MaxRetries < 0:
		l.MaxRetries = 0
	}
	return l
}

// Executor takes the tool calls of each reply in a turn through
// idle → evaluating_policy → awaiting_permission → executing → completed.
// It performs no I/O: Tick says what the caller must do next (ask the
// user, run a call, continue, stop), and Answer and Finish report back.
// Safe calls go straight to executing; only calls the policy cannot
// decide pause for the user.
type Executor struct {
	reg        *tools.Registry
	policy     Policy
	limits     Limits
	state      State
	calls      []*Pending
	next       int
	iterations int
	failures   map[string]int // failed attempts per tool name in this turn
	stop       *Error
	warn       error
}

// NewExecutor returns an Executor for one turn. Zero Limits fields take
// the defaults.
func NewExecutor(reg *tools.Registry, policy Policy, limits Limits) *Executor {
	return &Executor{reg: reg, policy: policy, limits: limits.withDefaults(), failures: map[string]int{}}
}

// State returns the current state.
func (x *Executor) State() State { return x.state }

// Calls returns the calls of the current reply.
func (x *Executor) Calls() []*Pending { return x.calls }

// Iterations returns the rounds of calls begun in this turn.
func (x *Executor) Iterations() int { return x.iterations }

// ErrState is returned when a method is called in the wrong state.
var ErrState = errors.New("agent: executor method called in the wrong state")

// Begin loads the calls of a new reply. It is allowed when Idle or
// Completed (and not stopped).
func (x *Executor) Begin(calls []grammar.Call) error {
	if x.state != Idle && x.state != Completed || x.stop != nil {
		return fmt.Errorf("%w: Begin in %s", ErrState, x.state)
	}
	x.iterations++
	x.calls, x.next = make([]*Pending, len(calls)), 0
	for i, c := range calls {
		p := &Pending{Call: c}
		p.Tool, _ = x.reg.Lookup(c.Name)
		x.calls[i] = p
	}
	x.state = EvaluatingPolicy
	if x.iterations > x.limits.MaxIterations {
		x.stop = &Error{ToolLoopLimitReached, fmt.Sprintf("stopped after %d rounds of tool calls for one message (the limit)", x.limits.MaxIterations)}
		for _, p := range x.calls {
			x.refuse(p, ToolLoopLimitReached, "not run: the turn reached its limit of %d rounds of tool calls", x.limits.MaxIterations)
		}
		x.next = len(x.calls)
	}
	return nil
}

// Malformed records a reply that tried to call a tool and failed to
// form the call (counted as a failed attempt, like invalid arguments).
func (x *Executor) Malformed() {
	x.failures[""]++
}

// Tick advances through the calls until the caller must act.
func (x *Executor) Tick() Step {
	switch x.state {
	case Idle:
		return Step{Action: ActionContinue}
	case AwaitingPermission:
		return Step{Action: ActionPrompt, Call: x.calls[x.next]}
	case Executing:
		return Step{Action: ActionExecute, Call: x.calls[x.next]}
	case Completed:
		return x.final()
	}
	for ; x.next < len(x.calls); x.next++ {
		p := x.calls[x.next]
		if x.next >= x.limits.MaxToolCalls {
			x.stop = &Error{ToolLoopLimitReached, fmt.Sprintf("the reply held %d tool calls; the limit is %d per reply", len(x.calls), x.limits.MaxToolCalls)}
			x.refuse(p, ToolLoopLimitReached, "not run: a reply may hold at most %d tool calls", x.limits.MaxToolCalls)
			continue
		}
		if p.Tool == nil {
			x.failures[p.Call.Name]++
			x.fail(p, ToolNotFound, tools.TypeNotFound, x.unknown(p.Call.Name))
			continue
		}
		args, err := tools.NormalizeArgs(p.Call.Arguments)
		if err != nil {
			x.failures[p.Call.Name]++
			x.fail(p, InvalidToolSignature, tools.TypeOf(err), err.Error())
			continue
		}
		p.Call.Arguments = args
		switch x.policy.Evaluate(p.Tool, args) {
		case permission.Allow:
			x.state = Executing
			return Step{Action: ActionExecute, Call: p}
		case permission.Ask:
			x.state = AwaitingPermission
			return Step{Action: ActionPrompt, Call: p}
		default:
			p.Denied = true
			x.fail(p, ToolExecutionFailed, tools.TypePermissionDenied, fmt.Sprintf(
				"%s (%s risk) may not run; the user can allow it with --yes, --allow %s or --max-risk %s",
				p.Tool.Name, p.Tool.Risk, p.Tool.Name, p.Tool.Risk))
		}
	}
	x.state = Completed
	return x.final()
}

// final decides what follows a completed reply.
func (x *Executor) final() Step {
	if x.stop == nil {
		for name, n := range x.failures {
			if n > x.limits.MaxRetries {
				what := "the call to " + name
				if name == "" {
					what = "a malformed tool call"
				}
				x.stop = &Error{ToolRetriesExhausted, fmt.Sprintf("%s failed %d times in a row", what, n)}
				break
			}
		}
	}
	if x.stop != nil {
		return Step{Action: ActionStop, Err: x.stop}
	}
	return Step{Action: ActionContinue}
}

// Answer reports the user's answer to ActionPrompt. A failure to
// remember an "always" answer is returned but does not change the
// outcome.
func (x *Executor) Answer(a permission.Answer) error {
	if x.state != AwaitingPermission {
		return fmt.Errorf("%w: Answer in %s", ErrState, x.state)
	}
	p := x.calls[x.next]
	p.Asked, p.Answer = true, a
	warn := x.policy.Record(p.Tool, p.Call.Arguments, a)
	if a.Allowed() {
		x.state = Executing
		return warn
	}
	p.Denied = true
	x.fail(p, ToolExecutionFailed, tools.TypePermissionDenied, fmt.Sprintf("the user refused to let %s run with these arguments", p.Tool.Name))
	x.next++
	x.state = EvaluatingPolicy
	return warn
}

// Finish reports the result of ActionExecute.
func (x *Executor) Finish(res tools.Result) error {
	if x.state != Executing {
		return fmt.Errorf("%w: Finish in %s", ErrState, x.state)
	}
	p := x.calls[x.next]
	p.Duration = time.Duration(res.Metadata.ExecutionTimeMS) * time.Millisecond
	switch {
	case res.Success:
		delete(x.failures, p.Call.Name)
		p.Result, p.done = res, true
	case res.ErrorType == tools.TypeValidationFailed || res.ErrorType == tools.TypeParse:
		x.failures[p.Call.Name]++
		p.Result, p.Code, p.done = res, InvalidToolSignature, true
	default:
		p.Result, p.Code, p.done = res, ToolExecutionFailed, true
	}
	x.next++
	x.state = EvaluatingPolicy
	return nil
}

func (x *Executor) unknown(name string) string {
	var names []string
	for _, t := range x.reg.Tools() {
		names = append(names, t.Name)
	}
	return fmt.Sprintf("unknown tool %q; the tools are %v", name, names)
}

// fail gives p a failed result.
func (x *Executor) fail(p *Pending, code Code, typ tools.ErrorType, msg string) {
	x.setFailure(p, code, tools.Fail(typ, msg))
}

func (x *Executor) refuse(p *Pending, code Code, format string, args ...any) {
	x.fail(p, code, tools.TypeInternal, fmt.Sprintf(format, args...))
}

// setFailure stores a failed result the loop made itself. A loop failure
// (an unknown tool, arguments that are no JSON object, a limit) has its
// message prefixed with the code, so the model (and a reader of the
// history) can tell it from a tool's own error, which Finish stores as the
// tool wrote it; a refused permission reads as its error type says.
func (x *Executor) setFailure(p *Pending, code Code, res tools.Result) {
	if res.ErrorType != tools.TypePermissionDenied {
		msg := fmt.Sprintf("%s (%d): %s", code, int(code), res.Message())
		res.ErrorMessage = &msg
	}
	p.Result, p.Code, p.done = res, code, true
}
