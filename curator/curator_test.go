package curator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// logFile is a 3,000-line log with a few lines that stand out.
func logFile() string {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		switch i {
		case 1234:
			b.WriteString("2026-11-23T10:20:34Z ERROR database connection refused: dial tcp 10.0.0.5:5432\n")
		case 2718:
			b.WriteString("2026-11-23T11:45:18Z INFO server listening on port 8443\n")
		default:
			fmt.Fprintf(&b, "2026-11-23T10:%02d:%02dZ INFO request %d served in %d ms\n", i/60%60, i%60, i, i%97)
		}
	}
	return b.String()
}

func TestNamedLines(t *testing.T) {
	for _, tc := range []struct {
		request string
		n       int
		want    []Range
	}{
		{"What is on line 2999 of big.txt?", 3000, []Range{{2996, 3000}}},
		{"show lines 10-20", 3000, []Range{{7, 23}}},
		{"show lines 1,200 to 1,210", 3000, []Range{{1197, 1213}}},
		{"what is on line 5000?", 3000, []Range{{2997, 3000}}},
		{"print the last lines of the log", 3000, []Range{{2981, 3000}}},
		{"the first lines, please", 3000, []Range{{1, 20}}},
		{"what port does the server use?", 3000, nil},
	} {
		got := merge(namedLines(tc.request, tc.n), tc.n)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("namedLines(%q) = %v, want %v", tc.request, got, tc.want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := terms("What port does the server in server.log listen on? Line 42", "logs/server.log")
	want := []string{"port", "listen", "42"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
}

// TestCurateAskedWhatItSays: a request that asks what a file says
// names no part of it; it gets the file's head, not a section where
// "say" happens to appear.
func TestCurateAskedWhatItSays(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		if i == 2000 {
			b.WriteString("As they say, measure twice.\n")
			continue
		}
		fmt.Fprintf(&b, "Line %d of the guide.\n", i)
	}
	for _, request := range []string{"What does guide.txt say?", "What does guide.txt mean?"} {
		s, err := New(Options{}).Curate(t.Context(), request, "guide.txt", b.String())
		if err != nil {
			t.Fatal(err)
		}
		if s.Method != MethodHead || !contains(s, 1) {
			t.Errorf("%q: %+v, want the head", request, s)
		}
	}
}

func TestMerge(t *testing.T) {
	got := merge([]Range{{50, 60}, {1, 10}, {11, 12}, {55, 70}, {-3, 0}, {95, 120}}, 100)
	want := []Range{{1, 12}, {50, 70}, {95, 100}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merge = %v, want %v", got, want)
	}
}

// chooser is a scripted Chooser.
type chooser struct {
	pick  []int
	err   error
	calls int
	seen  []Section
}

func (c *chooser) Choose(_ context.Context, _, _ string, _ int, secs []Section) ([]int, error) {
	c.calls++
	c.seen = secs
	return c.pick, c.err
}

func contains(s Selection, line int) bool {
	for _, r := range s.Ranges {
		if r.From <= line && line <= r.To {
			return true
		}
	}
	return false
}

func TestCurate(t *testing.T) {
	text := logFile()
	ctx := t.Context()
	for _, tc := range []struct {
		name    string
		request string
		chooser *chooser
		method  Method
		want    int // a line the selection must hold
		err     bool
	}{
		{"named line", "What is on line 2999?", &chooser{}, MethodLines, 2999, false},
		{"ranked, no chooser", "Which port is the server listening on?", nil, MethodRanked, 2718, false},
		{"chooser picks", "Which port is the server listening on?", &chooser{pick: []int{0}}, MethodChooser, 2718, false},
		{"chooser fails", "Why was the database connection refused?", &chooser{err: errors.New("boom")}, MethodRanked, 1234, true},
		{"chooser out of range", "Why was the database connection refused?", &chooser{pick: []int{99}}, MethodRanked, 1234, true},
		{"nothing matches", "Summarise it.", &chooser{}, MethodHead, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{}
			if tc.chooser != nil {
				opts.Chooser = tc.chooser
			}
			s, err := New(opts).Curate(ctx, tc.request, "server.log", text)
			if err != nil {
				t.Fatal(err)
			}
			if s.Method != tc.method || !contains(s, tc.want) || (s.Err != nil) != tc.err {
				t.Fatalf("got %+v (err %v), want method %s holding line %d", s, s.Err, tc.method, tc.want)
			}
			if s.Lines != 3000 || !s.valid(3000) {
				t.Fatalf("invalid selection %+v", s)
			}
			total := 0
			for _, r := range s.Ranges {
				total += r.To - r.From + 1
			}
			if total > 100 {
				t.Fatalf("%d lines selected: %v", total, s.Ranges)
			}
		})
	}
}

// TestCurateChooserSees: the sections shown to the chooser are the
// ranked ones, in file order, with the matching lines among those shown.
func TestCurateChooserSees(t *testing.T) {
	ch := &chooser{pick: []int{1, 0}}
	_, err := New(Options{Chooser: ch}).Curate(t.Context(), "database connection refused, and the server port", "server.log", logFile())
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.seen) < 2 {
		t.Fatalf("chooser saw %d sections", len(ch.seen))
	}
	var found []int
	for i, s := range ch.seen {
		if i > 0 && s.From <= ch.seen[i-1].From {
			t.Fatalf("sections out of order: %v", ch.seen)
		}
		if len(s.Lines) == 0 || len(s.Lines) > 8 {
			t.Fatalf("section %v shows %d lines", s.Range, len(s.Lines))
		}
		for _, l := range s.Lines {
			if l.N == 1234 || l.N == 2718 {
				found = append(found, l.N)
			}
		}
	}
	if len(found) != 2 {
		t.Fatalf("lines 1234 and 2718 not both shown: %v", ch.seen)
	}
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	text := logFile()
	req := "Which port is the server listening on?"
	ch := &chooser{pick: []int{0}}
	c := New(Options{Chooser: ch, ID: "m1", CacheDir: dir})
	first, err := c.Curate(t.Context(), req, "server.log", text)
	if err != nil || first.Cached {
		t.Fatalf("first: %+v, %v", first, err)
	}
	again, _ := c.Curate(t.Context(), req, "server.log", text)
	if !again.Cached || ch.calls != 1 || !reflect.DeepEqual(again.Ranges, first.Ranges) {
		t.Fatalf("memory: %+v after %d calls", again, ch.calls)
	}
	// A new session reads the answer from disk.
	disk, _ := New(Options{Chooser: ch, ID: "m1", CacheDir: dir}).Curate(t.Context(), req, "server.log", text)
	if !disk.Cached || ch.calls != 1 || !reflect.DeepEqual(disk.Ranges, first.Ranges) {
		t.Fatalf("disk: %+v after %d calls", disk, ch.calls)
	}
	// Another request, another file, another chooser: curated again.
	for _, tc := range []struct {
		id, req, text string
	}{
		{"m1", "Why was the database connection refused?", text},
		{"m1", req, text + "2026-11-23T12:00:00Z INFO done\n"},
		{"m2", req, text},
	} {
		before := ch.calls
		s, _ := New(Options{Chooser: ch, ID: tc.id, CacheDir: dir}).Curate(t.Context(), tc.req, "server.log", tc.text)
		if s.Cached || ch.calls != before+1 {
			t.Errorf("%s %q: cached %v, %d chooser calls", tc.id, tc.req, s.Cached, ch.calls-before)
		}
	}
	// A corrupt or invalid entry is ignored and replaced.
	c2 := New(Options{Chooser: ch, ID: "m1", CacheDir: dir})
	p := c2.path(c2.key(req, text))
	for _, bad := range []string{"{not json", `{"ranges":[{"from":5,"to":2}],"method":"chooser","lines":3000}`, `{"ranges":[{"from":1,"to":9999}],"method":"chooser","lines":3000}`} {
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		before := ch.calls
		s, err := New(Options{Chooser: ch, ID: "m1", CacheDir: dir}).Curate(t.Context(), req, "server.log", text)
		if err != nil || s.Cached || ch.calls != before+1 || !reflect.DeepEqual(s.Ranges, first.Ranges) {
			t.Fatalf("entry %q: %+v, %v", bad, s, err)
		}
		if b, _ := os.ReadFile(p); string(b) == bad {
			t.Fatalf("entry %q not replaced", bad)
		}
	}
	// A failed chooser's fallback is not cached.
	fail := &chooser{err: errors.New("boom")}
	cf := New(Options{Chooser: fail, ID: "m3", CacheDir: dir})
	cf.Curate(t.Context(), req, "server.log", text)
	cf.Curate(t.Context(), req, "server.log", text)
	if fail.calls != 2 {
		t.Fatalf("a failed choice was cached: %d calls", fail.calls)
	}
	if _, err := os.Stat(filepath.Join(dir, p[len(dir)+1:len(dir)+3])); err != nil {
		t.Fatal(err)
	}
}

func TestCurateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := New(Options{Chooser: &chooser{err: context.Canceled}}).Curate(ctx, "port", "server.log", logFile()); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
