package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/peterh/liner"
	"golang.org/x/term"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// errAborted is returned by lineReader.readLine when the user presses
// Ctrl-C at the prompt.
var errAborted = errors.New("input aborted")

// lineReader reads the REPL's input a line at a time.
type lineReader interface {
	// readLine shows prompt and reads one line: io.EOF at the end of
	// input (Ctrl-D on an empty line), errAborted for Ctrl-C.
	readLine(prompt string) (string, error)
	// addHistory remembers a line for the up arrow (and later sessions).
	addHistory(line string)
	Close() error
}

// openInput returns a line editor (arrow keys, history kept in the state
// directory, Tab completion) when stdin and stdout are the process's
// terminal; otherwise a plain reader of env.stdin that writes its
// prompts to prompts (nil: none).
func openInput(env *cliEnv, prompts io.Writer, complete liner.WordCompleter) lineReader {
	in, ok := env.stdin.(*os.File)
	_, outTerm := terminalOut(env.stdout)
	if !ok || in.Fd() != os.Stdin.Fd() || !term.IsTerminal(int(in.Fd())) || !outTerm {
		return &plainInput{r: bufio.NewReader(env.stdin), prompts: prompts}
	}
	s := liner.NewLiner()
	s.SetCtrlCAborts(true)
	s.SetMultiLineMode(true)
	s.SetTabCompletionStyle(liner.TabPrints)
	s.SetWordCompleter(complete)
	t := &termInput{s: s, out: env.stdout, errw: env.stderr}
	path, err := historyPath(env.getenv)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "warning: history will not be kept: %v\n", err)
		return t
	}
	t.path = path
	if f, err := os.Open(path); err == nil {
		s.ReadHistory(f)
		f.Close()
	}
	return t
}

// historyPath is where the REPL keeps its input history:
// $XDG_STATE_HOME/offgrid/history, by default ~/.local/state/offgrid/history.
func historyPath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "offgrid", "history"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_STATE_HOME nor HOME is set")
	}
	return filepath.Join(home, ".local", "state", "offgrid", "history"), nil
}

// termInput is the line editor at a terminal.
type termInput struct {
	s      *liner.State
	path   string // history file; "" keeps none
	out    io.Writer
	errw   io.Writer
	warned bool
}

func (t *termInput) readLine(prompt string) (string, error) {
	line, err := t.s.Prompt(prompt)
	switch {
	case errors.Is(err, liner.ErrPromptAborted):
		return "", errAborted
	case errors.Is(err, io.EOF):
		fmt.Fprintln(t.out) // the shell's prompt on a line of its own
	}
	return line, err
}

// addHistory adds line to the history and saves the history, so that a
// session that ends abruptly keeps it.
func (t *termInput) addHistory(line string) {
	t.s.AppendHistory(line)
	if t.path == "" {
		return
	}
	var b bytes.Buffer
	t.s.WriteHistory(&b)
	if err := atomicfile.WriteFile(t.path, b.Bytes(), 0o600); err != nil && !t.warned {
		t.warned = true
		fmt.Fprintf(t.errw, "warning: history not saved: %v\n", err)
	}
}

func (t *termInput) Close() error { return t.s.Close() }

// plainInput reads lines from a pipe or a file.
type plainInput struct {
	r       *bufio.Reader
	prompts io.Writer
}

func (p *plainInput) readLine(prompt string) (string, error) {
	if p.prompts != nil {
		fmt.Fprint(p.prompts, prompt)
	}
	line, err := p.r.ReadString('\n')
	if err != nil && line == "" {
		if p.prompts != nil {
			fmt.Fprintln(p.prompts)
		}
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func (p *plainInput) addHistory(string) {}
func (p *plainInput) Close() error      { return nil }

// multiQuote opens and closes a message of several lines, as in
// `ollama run`.
const multiQuote = `"""`

// readMessage reads one message: a line, or every line from one that
// starts with """ to one that ends with """ (the quotes dropped). It
// returns the error of the read that failed; Ctrl-C drops a message of
// several lines begun.
func readMessage(in lineReader, prompt string) (text string, multi bool, err error) {
	line, err := in.readLine(prompt)
	if err != nil {
		return "", false, err
	}
	rest, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), multiQuote)
	if !ok {
		return line, false, nil
	}
	if body, ok := strings.CutSuffix(rest, multiQuote); ok {
		return body, true, nil
	}
	lines := []string{rest}
	for {
		l, err := in.readLine("... ")
		if err != nil {
			return "", true, err
		}
		if body, ok := strings.CutSuffix(l, multiQuote); ok {
			lines = append(lines, body)
			break
		}
		lines = append(lines, l)
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n"), true, nil
}

// completer completes, at the cursor, a slash command at the start of the
// line, a file name after /save or /load (relative to the current
// directory), and a file name anywhere else (relative to root, where the
// tools work).
func completer(commands []string, root string) liner.WordCompleter {
	return func(line string, pos int) (string, []string, string) {
		r := []rune(line)
		pos = min(max(pos, 0), len(r))
		before, tail := string(r[:pos]), string(r[pos:])
		start := strings.LastIndexAny(before, " \t") + 1
		head, word := before[:start], before[start:]
		if start == 0 && strings.HasPrefix(word, "/") {
			var out []string
			for _, c := range commands {
				if strings.HasPrefix(c, word) {
					out = append(out, c+" ")
				}
			}
			return head, out, tail
		}
		dir := root
		if cmd, _, _ := strings.Cut(strings.TrimLeft(before, " "), " "); cmd == "/save" || cmd == "/load" {
			dir = "."
		}
		return head, completeFile(dir, word), tail
	}
}

// completeFile lists the names in base that complete word, a path
// relative to base; directories end in a slash. Hidden names are listed
// only for a word that starts them with a dot.
func completeFile(base, word string) []string {
	dirPart, prefix := "", word
	if i := strings.LastIndex(word, "/"); i >= 0 {
		dirPart, prefix = word[:i+1], word[i+1:]
	}
	dir := filepath.Join(base, filepath.FromSlash(dirPart))
	if filepath.IsAbs(dirPart) {
		dir = dirPart
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".") {
			continue
		}
		if e.IsDir() {
			name += "/"
		} else if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.IsDir() { // a link to a directory
			name += "/"
		}
		out = append(out, dirPart+name)
	}
	sort.Strings(out)
	return out
}
