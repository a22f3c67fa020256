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
		{"1\n", DenyOnce},
		{"2\n", AllowOnce},
		{"3\n", AllowSession},
		{"4\n", AlwaysAllow},
		{"9\n3\n", AllowSession}, // out of range, then a valid choice
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
		for _, s := range []string{"bash (high risk)", "⚠", "Arguments:\n{\n  \"command\": \"rm -rf build\"\n}\n", "1. Deny", "2. Allow once", "3. Allow for this session", "4. Always allow"} {
			if !strings.Contains(screen, s) {
				t.Errorf("input %q: prompt lacks %q:\n%s", c.input, s, screen)
			}
		}
	}
}
