package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHostileTemplates feeds templates that used to kill or hang the
// process (Go stack overflow, out of memory, endless loops). Each must be
// refused with a warning and replaced by the family layout.
func TestHostileTemplates(t *testing.T) {
	deep := "{{ " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + " }}"
	// why is the reason the warning names; "" where it depends on which
	// limit of the checker child is hit first (memory, CPU, stack).
	for _, tc := range []struct{ name, src, why string }{
		{"recursive macro", `{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}`, "recursive macro"},
		{"mutually recursive macros", `{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}{{ a() }}{% endmacro %}{{ a() }}`, "recursive macro"},
		{"aliased recursive macro", `{% macro f() %}{% set g = f %}{{ g() }}{% endmacro %}{{ f() }}`, ""},
		{"100k nested parentheses", deep, "brackets nested more than 64 deep"},
		{"string repetition", `{{ 'x' * 1000000000 }}`, ""},
		// The output limit or the child's CPU time, whichever the
		// machine reaches first (a loaded one: the CPU time);
		// TestRenderLimits checks the output limit of this loop.
		{"output size", `{% for m in range(100000) %}{{ 'y' * 1000 }}{% endfor %}`, ""},
		{"huge range", `{% for i in range(1000000000) %}{% endfor %}`, "range()"},
		{"nested loops", `{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}`, "range()"},
		{"loop over a repeated string", `{% for c in 'ab' * 10000000 %}{% endfor %}`, ""},
		{"self include", `{% include "chat_template" %}`, `"include" tags`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := newChatTemplate(ModelInfo{Template: tc.src, Architecture: "llama"}, nil)
			if ct.tmpl != nil {
				t.Fatal("template accepted")
			}
			if len(ct.warnings) != 1 || !strings.Contains(ct.warnings[0], "refused ("+ErrTemplate.Error()+": "+tc.why) ||
				!strings.Contains(ct.warnings[0], "chatml layout") {
				t.Fatalf("warnings = %q, want one naming %q and the chatml layout", ct.warnings, tc.why)
			}
			t.Log(ct.warnings[0])
		})
	}
}

// TestTemplateVerdictCached checks that a template is run in the checker
// once: the verdict is cached per template and reused.
func TestTemplateVerdictCached(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	info := ModelInfo{Template: `{% for m in messages %}{{ m.content }}{% endfor %}`}
	if err := vetTemplate(info); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "offgrid", "template-verdicts", "*"))
	if len(files) != 1 {
		t.Fatalf("cached verdicts %q, want one", files)
	}
	// A forged cached refusal is what the next check returns, without a child.
	if err := os.WriteFile(files[0], []byte("refused: forged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := vetTemplate(info); !errors.Is(err, ErrTemplate) || !strings.Contains(err.Error(), "forged") {
		t.Fatalf("second check = %v, want the cached refusal", err)
	}
}

// TestRenderLimits checks the limits that hold inside every render, also
// where no checker child runs.
func TestRenderLimits(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want error
	}{
		{`{{ 'x' * 20000000 }}`, errTemplateOutput},
		{`{% for m in range(100000) %}{{ 'y' * 1000 }}{% endfor %}`, errTemplateOutput},
		{`{% for i in range(2000000) %}{% endfor %}`, errTemplateRange},
		{`{% for a in range(2000) %}{% for b in range(2000) %}{% endfor %}{% endfor %}`, errTemplateRange},
	} {
		tmpl, err := parseJinja(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		ct := &chatTemplate{tmpl: tmpl, now: time.Now}
		_, err = ct.render([]Message{{Role: RoleUser, Content: "hi"}}, nil, true)
		if !errors.Is(err, tc.want) || !errors.Is(err, ErrTemplate) {
			t.Errorf("%s: error = %v, want %v", tc.src, err, tc.want)
		}
	}
	tmpl, err := parseJinja(`{% for i in range(3) %}{{ i }}{% endfor %}{% for i in range(5, 0, -2) %}{{ i }}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := (&chatTemplate{tmpl: tmpl, now: time.Now}).render(nil, nil, true); err != nil || out != "012531" {
		t.Errorf("range = %q, %v; want 012531", out, err)
	}
}
