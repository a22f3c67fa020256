package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar/gbnf"
	"github.com/offgrid-ai/offgrid/internal/testenv"
)

func runGrammar(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code = runMain(context.Background(), env, append([]string{"grammar"}, args...))
	return code, out.String(), errb.String()
}

const weatherTools = `[{"type":"function","function":{"name":"get_weather","description":"Weather now",
 "parameters":{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}}}]`

func TestGrammarCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, []byte(weatherTools), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"generic", "hermes", "llama3", "mistral", "pythonic"} {
		code, out, errs := runGrammar(t, "", "--tools", file, "--tool-format", format, "--parallel", "--check")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		g, err := gbnf.Parse(out)
		if err != nil {
			t.Fatalf("%s: output does not parse: %v\n%s", format, err, out)
		}
		if !g.Has("root") || !strings.Contains(errs, "llama.cpp accepts") {
			t.Errorf("%s: no root rule or no check report: %s", format, errs)
		}
	}
	code, out, _ := runGrammar(t, weatherTools, "--tools", "-", "--tool-format", "hermes")
	if code != 0 || !strings.Contains(out, "# trigger pattern:") || !strings.Contains(out, `"<tool_call>"`) {
		t.Errorf("hermes from stdin: exit %d\n%s", code, out)
	}
}

func TestGrammarCommandBFCL(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testenv.BFCLDir(t), testenv.BFCLMultiple))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "case.json")
	line, _, _ := strings.Cut(string(raw), "\n")
	if err := os.WriteFile(file, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runGrammar(t, "", "--tools", file, "--tool-format", "hermes", "--check"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The old spelling still works and says what replaces it.
	code, out, errs := runGrammar(t, "", "--tools", file, "--format", "pythonic")
	if code != 0 || !strings.Contains(out, "format pythonic") || !strings.Contains(errs, "use --tool-format") {
		t.Fatalf("--format: exit %d: %s\n%s", code, errs, out)
	}
}

func TestGrammarCommandErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`[{"name":""}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "--tools"},
		{[]string{"--tools", bad, "--tool-format", "xml"}, 2, "unknown format"},
		{[]string{"--tools", bad, "--tool-choice", "none"}, 2, "tool-choice"},
		{[]string{"--tools", bad}, 1, "missing name"},
		{[]string{"--tools", filepath.Join(t.TempDir(), "nope.json")}, 1, "no such file"},
	}
	for _, tt := range tests {
		code, _, errs := runGrammar(t, "", tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}
