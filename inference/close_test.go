package inference_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/offgrid-ai/offgrid/inference"
)

// modelCalls calls every Model method that reaches llama.cpp. closed is
// what each returns after Close.
var modelCalls = []struct {
	name   string
	call   func(m *inference.Model) any
	closed any
}{
	{"Meta", func(m *inference.Model) any { v, ok := m.Meta("general.architecture"); return [2]any{v, ok} }, [2]any{"", false}},
	{"Architecture", func(m *inference.Model) any { return m.Architecture() }, ""},
	{"Description", func(m *inference.Model) any { return m.Description() }, ""},
	{"ParamCount", func(m *inference.Model) any { return m.ParamCount() }, uint64(0)},
	{"Size", func(m *inference.Model) any { return m.Size() }, uint64(0)},
	{"ContextLength", func(m *inference.Model) any { return m.ContextLength() }, 0},
	{"VocabSize", func(m *inference.Model) any { return m.VocabSize() }, 0},
	{"BOS", func(m *inference.Model) any { return m.BOS() }, inference.Token(-1)},
	{"EOS", func(m *inference.Model) any { return m.EOS() }, inference.Token(-1)},
	{"EOT", func(m *inference.Model) any { return m.EOT() }, inference.Token(-1)},
	{"AddBOS", func(m *inference.Model) any { return m.AddBOS() }, false},
	{"IsEOG", func(m *inference.Model) any { return m.IsEOG(m.EOS()) }, false},
	{"EOG", func(m *inference.Model) any { return m.EOG() }, []inference.Token(nil)},
	{"ChatTemplate", func(m *inference.Model) any { return m.ChatTemplate() }, ""},
	{"TokenText", func(m *inference.Model) any { return m.TokenText(65) }, ""},
	{"TokenPiece", func(m *inference.Model) any { return m.TokenPiece(65, true) }, ""},
	{"Tokenize", func(m *inference.Model) any { _, err := m.Tokenize("hi", true, true); return isClosed(err) }, true},
	{"Detokenize", func(m *inference.Model) any {
		_, err := m.Detokenize([]inference.Token{65}, true)
		return isClosed(err)
	}, true},
	{"CheckGrammar", func(m *inference.Model) any {
		return isClosed(m.CheckGrammar(&inference.Grammar{GBNF: `root ::= "a"`}))
	}, true},
	{"NewContext", func(m *inference.Model) any {
		c, err := m.NewContext(inference.ContextOptions{ContextSize: 64, Threads: 1})
		if err == nil {
			c.Close()
		}
		return isClosed(err)
	}, true},
}

func isClosed(err error) bool { return errors.Is(err, inference.ErrClosed) }

// TestModelUseAfterClose calls every method of a closed Model: zero
// values and ErrClosed, never a freed model handed to llama.cpp.
func TestModelUseAfterClose(t *testing.T) {
	m := loadTiny(t)
	open := map[string]any{}
	for _, c := range modelCalls {
		open[c.name] = c.call(m)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if !inference.Freed(m) {
		t.Error("weights not freed by Close with no context open")
	}
	for _, c := range modelCalls {
		if got := c.call(m); !reflect.DeepEqual(got, c.closed) {
			t.Errorf("%s after Close = %#v, want %#v (open: %#v)", c.name, got, c.closed, open[c.name])
		}
	}
	// The test can fail: on the open model most calls differ from closed.
	var same []string
	for _, c := range modelCalls {
		if reflect.DeepEqual(open[c.name], c.closed) {
			same = append(same, c.name)
		}
	}
	if !slices.Equal(same, []string{"AddBOS"}) { // the tiny model adds no BOS
		t.Errorf("on the open model %v give their closed value: %v", same, open)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if m.Path() == "" {
		t.Error("Path lost after Close")
	}
}

// TestModelConcurrentClose closes the model while goroutines call every
// method: each call sees the model open or closed, whole (run with -race).
func TestModelConcurrentClose(t *testing.T) {
	m := loadTiny(t)
	open := map[string]any{}
	for _, c := range modelCalls {
		open[c.name] = c.call(m)
	}
	var started, done sync.WaitGroup
	errs := make(chan string, len(modelCalls)*4)
	for _, c := range modelCalls {
		for range 4 {
			started.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				for i := 0; ; i++ {
					got := c.call(m)
					if i == 0 {
						started.Done()
					}
					switch {
					case reflect.DeepEqual(got, c.closed) && m.VocabSize() == 0:
						return // saw the close
					case !reflect.DeepEqual(got, open[c.name]):
						errs <- c.name
						return
					}
				}
			}()
		}
	}
	started.Wait()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	done.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("%s returned neither its open nor its closed value", name)
	}
}

// TestContextOutlivesModel closes the model during a generation: the
// context finishes it and keeps working until it is closed, and only then
// are the weights freed.
func TestContextOutlivesModel(t *testing.T) {
	m := loadTiny(t)
	c, err := m.NewContext(inference.ContextOptions{ContextSize: 256, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := prompt(t, m, "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")
	g := &inference.Grammar{GBNF: `root ::= "hello world"`}
	res, err := c.Generate(context.Background(), inference.Request{Prompt: p, MaxTokens: 32, Grammar: g},
		func(inference.Piece) error { return m.Close() })
	if err != nil || res.Text != "hello world" {
		t.Fatalf("Generate with the model closed midway = %q, %v", res.Text, err)
	}
	if m.VocabSize() != 0 || inference.Freed(m) {
		t.Fatalf("after Model.Close with a context open: VocabSize %d, freed %v; want 0 and not freed", m.VocabSize(), inference.Freed(m))
	}
	if _, err := c.Tokenize("again", false, false); err != nil {
		t.Errorf("Context.Tokenize after Model.Close: %v", err)
	}
	if res := generate(t, c, inference.Request{Prompt: p, MaxTokens: 4, Grammar: &inference.Grammar{GBNF: `root ::= "ok"`}}); res.Text != "ok" {
		t.Errorf("second generation: %q", res.Text)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !inference.Freed(m) {
		t.Error("weights not freed when the last context closed")
	}
}

// TestContextUseAfterClose calls every Context method after Close.
func TestContextUseAfterClose(t *testing.T) {
	m := loadTiny(t)
	c, err := m.NewContext(inference.ContextOptions{ContextSize: 256, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := prompt(t, m, "hi")
	generate(t, c, inference.Request{Prompt: p, MaxTokens: 2})
	if c.Size() == 0 || len(c.Cached()) == 0 {
		t.Fatalf("open context: Size %d, %d cached", c.Size(), len(c.Cached()))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c.Reset()
	if _, err := c.Generate(context.Background(), inference.Request{Prompt: p}, nil); !isClosed(err) {
		t.Errorf("Generate after Close: %v, want ErrClosed", err)
	}
	if _, err := c.Tokenize("hi", false, false); !isClosed(err) {
		t.Errorf("Tokenize after Close: %v, want ErrClosed", err)
	}
	if c.Size() != 0 || c.Cached() != nil || c.Model() != m {
		t.Errorf("after Close: Size %d, Cached %v, Model %p", c.Size(), c.Cached(), c.Model())
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if m.VocabSize() == 0 {
		t.Error("closing a context closed its model")
	}
}
