package permission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/tools"
)

func TestHuhPrompterAccessible(t *testing.T) {
	cases := []struct {
		input string
		want  Answer
	}{
		{"1\n", AllowOnce},
		{"2\n", AllowSession},
		{"3\n", AlwaysAllow},
		{"4\n", DenyOnce},
		{"9\n2\n", AllowSession}, // out of range, then a valid choice
		{"", DenyOnce},           // end of input denies
		{"\n", DenyOnce},         // empty line takes the preselected Deny
	}
	for _, c := range cases {
		var out strings.Builder
		h := &HuhPrompter{In: strings.NewReader(c.input), Out: &out, Accessible: true}
		got, err := h.Ask(context.Background(), Request{
			Tool: "bash", Risk: tools.High, Description: "run a command",
			Args: json.RawMessage(`{"command":"rm -rf build"}`),
		})
		if err != nil {
			t.Fatalf("input %q: %v", c.input, err)
		}
		if got != c.want {
			t.Errorf("input %q: %v, want %v", c.input, got, c.want)
		}
		screen := out.String()
		for _, s := range []string{"bash (high risk)", "⚠", `"command": "rm -rf build"`, "1. Allow once", "2. Allow for this session", "3. Always allow", "4. Deny"} {
			if !strings.Contains(screen, s) {
				t.Errorf("input %q: prompt lacks %q:\n%s", c.input, s, screen)
			}
		}
	}
}

func TestPromptDescribe(t *testing.T) {
	long := json.RawMessage(`{"content":"` + strings.Repeat("x", 5000) + `"}`)
	s := describe(Request{Tool: "write_file", Risk: tools.High, Args: long})
	if len(s) > maxShownArgs+100 || !strings.Contains(s, "more bytes") {
		t.Errorf("long arguments not shortened: %d bytes", len(s))
	}
	if s := describe(Request{Args: json.RawMessage(`{}`)}); !strings.Contains(s, "(no arguments)") {
		t.Errorf("empty arguments: %q", s)
	}
	if title(Request{Tool: "read_file", Risk: tools.Medium}) != "Tool call: read_file (medium risk)" {
		t.Errorf("medium title: %q", title(Request{Tool: "read_file", Risk: tools.Medium}))
	}
}
