package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

func TestPrompterAccessible(t *testing.T) {
	cases := []struct {
		input string
		want  permission.Answer
	}{
		{"1\n", permission.DenyOnce},
		{"2\n", permission.AllowOnce},
		{"3\n", permission.AllowSession},
		{"4\n", permission.AlwaysAllow},
		{"9\n3\n", permission.AllowSession}, // out of range, then a valid choice
		{"", permission.DenyOnce},           // end of input denies
		{"\n", permission.DenyOnce},         // empty line takes the preselected Deny
	}
	for _, c := range cases {
		var out strings.Builder
		h := &Prompter{In: strings.NewReader(c.input), Out: &out, Accessible: true}
		got, err := h.Ask(context.Background(), permission.Request{
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
		for _, s := range []string{"bash (high risk)", "⚠", "Arguments:\n{\n  \"command\": \"rm -rf build\"\n}\n", "1. Deny", "2. Allow once", "3. Allow for this session", "4. Always allow"} {
			if !strings.Contains(screen, s) {
				t.Errorf("input %q: prompt lacks %q:\n%s", c.input, s, screen)
			}
		}
	}
}
