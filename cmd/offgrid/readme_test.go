package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// readme returns the README's text.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The README's table of run's flags is the one the flag set gives (and
// so what --help shows); regenerate it with `offgrid help --markdown run`.
func TestREADMEFlagTable(t *testing.T) {
	text := readme(t)
	const begin, end = "<!-- flags:run -->\n", "<!-- end flags:run -->"
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatal("the README has no run flags table")
	}
	want, err := flagTable("run")
	if err != nil {
		t.Fatal(err)
	}
	if got := text[i+len(begin) : j]; got != want {
		t.Errorf("README's run flags table is stale; replace it with the output of `offgrid help --markdown run`:\n%s", want)
	}
	// Every flag --help shows is in the table.
	env, errb := runEnv(t, "", &bytes.Buffer{})
	runMain(t.Context(), env, []string{"run", "--help"})
	for _, line := range strings.Split(errb.String(), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "-") {
			continue
		}
		name := strings.TrimSuffix(f[len(f)-1], ",")
		for _, w := range f {
			if strings.HasPrefix(w, "--") {
				name = strings.SplitN(w, "[", 2)[0]
				break
			}
		}
		if !strings.Contains(want, "`"+name+"`") {
			t.Errorf("--help shows %s, the table does not", name)
		}
	}
}

// cheapCommands run as shown; the others (they load models, fetch or
// change the store) are checked up to their flags, with --help after them.
var cheapCommands = []string{"models ls", "help", "completion", "config", "version", "tools list"}

// Every offgrid command in the README's sh blocks runs as shown: the
// cheap ones whole, the others as far as parsing their flags.
func TestREADMECommands(t *testing.T) {
	var cmds [][]string
	inSh := false
	for _, line := range strings.Split(readme(t), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(line, "```"):
			inSh = false
			continue
		}
		if !inSh {
			continue
		}
		line, _, _ = strings.Cut(line, " #")
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(line, "source <("), ")"), "$ "))
		if !strings.HasPrefix(line, "offgrid ") {
			continue
		}
		args, err := shellWords(strings.TrimPrefix(line, "offgrid "))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		cmds = append(cmds, args)
	}
	if len(cmds) < 8 {
		t.Fatalf("found %d commands in the README", len(cmds))
	}
	for _, args := range cmds {
		line := strings.Join(args, " ")
		cheap := false
		for _, c := range cheapCommands {
			cheap = cheap || strings.HasPrefix(line, c)
		}
		if !cheap {
			args = append(args, "--help")
		}
		env, errb := runEnv(t, "", &bytes.Buffer{})
		if code := runMain(t.Context(), env, args); code != 0 {
			t.Errorf("offgrid %s: exit %d\n%s", line, code, errb.String())
		}
	}
}

// shellWords splits a command line as sh would for the README's simple
// quoting: words, "double" and 'single' quoted strings.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, os.ErrInvalid
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
