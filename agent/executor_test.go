package agent

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

func call(name, args string) grammar.Call {
	return grammar.Call{ID: "id-" + name, Name: name, Arguments: json.RawMessage(args)}
}

// TestExecutorTransitions walks the state machine through every path a
// call can take, checking the state after each step.
func TestExecutorTransitions(t *testing.T) {
	dir := t.TempDir()
	reg := testRegistry(t, dir)
	x := NewExecutor(reg, testPolicy(t, permission.Config{Interactive: true}), Limits{})
	if x.State() != Idle || x.Tick().Action != ActionContinue {
		t.Fatalf("new executor: state %s", x.State())
	}
	if err := x.Finish(tools.OK("")); !errors.Is(err, ErrState) {
		t.Fatalf("Finish while idle: %v", err)
	}
	if err := x.Begin([]grammar.Call{
		call("echo", `{"text":"hi"}`),        // safe: executes
		call("write_note", `{"text":"yes"}`), // high: asks, allowed
		call("write_note", `{"text":"no"}`),  // high: asks, denied
		call("nope", `{}`),                   // unknown
		call("add", `"not an object"`),       // bad arguments
		call("add", `{"a":1,"b":"x"}`),       // schema failure at execution
	}); err != nil {
		t.Fatal(err)
	}
	if x.State() != EvaluatingPolicy {
		t.Fatalf("after Begin: %s", x.State())
	}

	st := x.Tick()
	if st.Action != ActionExecute || st.Call.Call.Name != "echo" || x.State() != Executing {
		t.Fatalf("echo: %v %s", st.Action, x.State())
	}
	if x.Tick().Call != st.Call {
		t.Fatal("Tick while executing must repeat the step")
	}
	if err := x.Answer(permission.AllowOnce); !errors.Is(err, ErrState) {
		t.Fatalf("Answer while executing: %v", err)
	}
	x.Finish(tools.OK("hi"))

	st = x.Tick()
	if st.Action != ActionPrompt || st.Call.Call.Name != "write_note" || x.State() != AwaitingPermission {
		t.Fatalf("write_note: %v %s", st.Action, x.State())
	}
	x.Answer(permission.AllowOnce)
	if x.State() != Executing || x.Tick().Action != ActionExecute {
		t.Fatalf("after allow: %s", x.State())
	}
	x.Finish(tools.OK("written"))

	st = x.Tick()
	if st.Action != ActionPrompt {
		t.Fatalf("second write_note must ask again after AllowOnce: %v", st.Action)
	}
	x.Answer(permission.DenyOnce)
	if x.State() != EvaluatingPolicy {
		t.Fatalf("after deny: %s", x.State())
	}

	st = x.Tick() // unknown and bad arguments are settled without the caller
	if st.Action != ActionExecute || string(st.Call.Call.Arguments) != `{"a":1,"b":"x"}` {
		t.Fatalf("last add: %v %+v", st.Action, st.Call)
	}
	x.Finish(tools.Fail(tools.TypeValidationFailed, "b: want integer"))
	st = x.Tick()
	if st.Action != ActionContinue || x.State() != Completed {
		t.Fatalf("end: %v %s", st.Action, x.State())
	}

	want := []struct {
		ok     bool
		code   Code
		denied bool
		asked  bool
	}{
		{true, 0, false, false},
		{true, 0, false, true},
		{false, ToolExecutionFailed, true, true},
		{false, ToolNotFound, false, false},
		{false, InvalidToolSignature, false, false},
		{false, InvalidToolSignature, false, false},
	}
	for i, p := range x.Calls() {
		w := want[i]
		if p.Result.Success != w.ok || p.Code != w.code || p.Denied != w.denied || p.Asked != w.asked {
			t.Errorf("call %d (%s): ok %v code %v denied %v asked %v, want %+v", i, p.Call.Name, p.Result.Success, p.Code, p.Denied, p.Asked, w)
		}
	}
	if p := x.Calls()[3]; p.Result.ErrorType != tools.TypeNotFound || p.Result.Message() == "" {
		t.Errorf("unknown tool result: %s", p.Result)
	}
	if p := x.Calls()[2]; p.Result.ErrorType != tools.TypePermissionDenied {
		t.Errorf("denied result: %s", p.Result)
	}
}

func TestExecutorPolicyDenies(t *testing.T) {
	reg := testRegistry(t, t.TempDir())
	// Not interactive: a high-risk call is denied without a prompt.
	x := NewExecutor(reg, testPolicy(t, permission.Config{}), Limits{})
	x.Begin([]grammar.Call{call("write_note", `{"text":"x"}`)})
	if st := x.Tick(); st.Action != ActionContinue {
		t.Fatalf("got %v, want continue", st.Action)
	}
	p := x.Calls()[0]
	if !p.Denied || p.Asked || p.Result.ErrorType != tools.TypePermissionDenied {
		t.Fatalf("got %+v", p)
	}
	// --deny wins over --yes.
	x = NewExecutor(reg, testPolicy(t, permission.Config{AllowAll: true, Deny: []string{"echo"}}), Limits{})
	x.Begin([]grammar.Call{call("echo", `{"text":"x"}`), call("write_note", `{"text":"x"}`)})
	st := x.Tick()
	if st.Action != ActionExecute || st.Call.Call.Name != "write_note" || !x.Calls()[0].Denied {
		t.Fatalf("got %v %+v", st.Action, st.Call)
	}
}

func TestExecutorRetries(t *testing.T) {
	reg := testRegistry(t, t.TempDir())
	pol := testPolicy(t, permission.Config{})
	for _, tc := range []struct {
		name      string
		retries   int
		failures  int // rounds with a failing call before the result is checked
		wantStop  bool
		succeedAt int // a success in this round resets the count (0: never)
	}{
		{"first failure", 0, 1, false, 0},
		{"two failures", 0, 2, false, 0},
		{"three failures (two retries failed)", 0, 3, true, 0},
		{"reset by a success", 0, 4, false, 3},
		{"no retries allowed", -1, 1, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := NewExecutor(reg, pol, Limits{MaxRetries: tc.retries})
			var st Step
			for round := 1; round <= tc.failures; round++ {
				c := call("add", `{"a":1}`)
				if round == tc.succeedAt {
					c = call("add", `{"a":1,"b":2}`)
				}
				if err := x.Begin([]grammar.Call{c}); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				st = x.Tick()
				if st.Action != ActionExecute {
					t.Fatalf("round %d: %v", round, st.Action)
				}
				x.Finish(reg.Execute(t.Context(), c.Name, c.Arguments))
				st = x.Tick()
				if st.Action == ActionStop && round < tc.failures {
					t.Fatalf("stopped early in round %d", round)
				}
			}
			if got := st.Action == ActionStop; got != tc.wantStop {
				t.Fatalf("stop = %v, want %v (%+v)", got, tc.wantStop, st.Err)
			}
			if tc.wantStop && !errors.Is(st.Err, ErrToolRetriesExhausted) {
				t.Fatalf("err %v", st.Err)
			}
			if tc.wantStop {
				if err := x.Begin(nil); !errors.Is(err, ErrState) {
					t.Fatalf("Begin after stop: %v", err)
				}
			}
		})
	}
}

func TestExecutorLimits(t *testing.T) {
	reg := testRegistry(t, t.TempDir())
	pol := testPolicy(t, permission.Config{})

	// Calls beyond the per-reply cap are not run, and the turn stops.
	x := NewExecutor(reg, pol, Limits{MaxToolCalls: 2})
	x.Begin([]grammar.Call{call("echo", `{"text":"1"}`), call("echo", `{"text":"2"}`), call("echo", `{"text":"3"}`)})
	ran := 0
	for st := x.Tick(); ; st = x.Tick() {
		if st.Action != ActionExecute {
			if st.Action != ActionStop || !errors.Is(st.Err, ErrToolLoopLimitReached) {
				t.Fatalf("got %v %v", st.Action, st.Err)
			}
			break
		}
		ran++
		x.Finish(tools.OK("ok"))
	}
	if ran != 2 || x.Calls()[2].Code != ToolLoopLimitReached || x.Calls()[2].Result.Success {
		t.Fatalf("ran %d, third call %+v", ran, x.Calls()[2])
	}

	// Rounds beyond MaxIterations are refused outright.
	x = NewExecutor(reg, pol, Limits{MaxIterations: 2})
	for round := 1; round <= 3; round++ {
		x.Begin([]grammar.Call{call("echo", `{"text":"x"}`)})
		st := x.Tick()
		if round <= 2 {
			if st.Action != ActionExecute {
				t.Fatalf("round %d: %v", round, st.Action)
			}
			x.Finish(tools.OK("x"))
			if st := x.Tick(); st.Action != ActionContinue {
				t.Fatalf("round %d end: %v", round, st.Action)
			}
			continue
		}
		if st.Action != ActionStop || !errors.Is(st.Err, ErrToolLoopLimitReached) || x.Calls()[0].Code != ToolLoopLimitReached {
			t.Fatalf("round 3: %v %v", st.Action, st.Err)
		}
	}
}

func TestStateAndCodeNames(t *testing.T) {
	for s, want := range map[State]string{Idle: "idle", EvaluatingPolicy: "evaluating_policy", AwaitingPermission: "awaiting_permission", Executing: "executing", Completed: "completed"} {
		if s.String() != want {
			t.Errorf("%d: %s, want %s", int(s), s, want)
		}
	}
	for c, want := range map[Code]string{500: "ToolNotFound", 501: "ToolExecutionFailed", 502: "InvalidToolSignature", 503: "ToolRetriesExhausted", 504: "ToolLoopLimitReached"} {
		if c.String() != want {
			t.Errorf("%d: %s, want %s", int(c), c, want)
		}
	}
	if e := (&Error{Code: ToolNotFound, Message: "x"}); !errors.Is(e, ErrToolNotFound) || errors.Is(e, ErrToolExecutionFailed) {
		t.Error("errors.Is by code")
	}
}
