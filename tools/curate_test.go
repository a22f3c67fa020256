package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/curator"
)

// TestReadFileCurated: with a curator and a request, a long file read
// whole comes back as the parts the request needs, numbered, with gaps
// and a note; short files, windows and calls without a request are read
// as before.
func TestReadFileCurated(t *testing.T) {
	root := t.TempDir()
	var long strings.Builder
	for i := 1; i <= 3000; i++ {
		if i == 2100 {
			long.WriteString("retry_limit = 7\n")
			continue
		}
		fmt.Fprintf(&long, "This is line %d of long.txt, with some filler text to make it long.\n", i)
	}
	os.WriteFile(filepath.Join(root, "long.txt"), []byte(long.String()), 0o644)
	// Over 8 KB but 100 lines: read whole.
	os.WriteFile(filepath.Join(root, "wide.txt"), []byte(strings.Repeat(strings.Repeat("w", 200)+"\n", 100)), 0o644)
	r, err := Builtin(root, WithCurator(curator.New(curator.Options{})))
	if err != nil {
		t.Fatal(err)
	}
	read := func(ctx context.Context, args string) string {
		t.Helper()
		res := r.Execute(ctx, "read_file", json.RawMessage(args))
		if !res.Success {
			t.Fatalf("%s: %s", args, res)
		}
		return res.Text()
	}
	ask := func(q string) context.Context { return WithRequest(t.Context(), q) }
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		args     string
		has, not []string
	}{
		{"named line", ask("What is on line 2999 of long.txt?"), `{"path":"long.txt"}`,
			[]string{"…\n2996: This is line 2996", "2999: This is line 2999", "3000: This is line 3000", "[long.txt has 3000 lines; shown: lines 2996–3000, the parts that matter", "with an offset"},
			[]string{"1: This is line 1 ", "2995:"}},
		{"ranked", ask("What is the retry limit?"), `{"path":"long.txt"}`,
			[]string{"2100: retry_limit = 7", "…\n", "chosen by offgrid's file curator"}, []string{"1: This is line 1 "}},
		{"window", ask("What is on line 2999?"), `{"path":"long.txt","offset":5}`,
			[]string{"5: This is line 5 ", "6: This"}, []string{"2999", "curator"}},
		{"no request", t.Context(), `{"path":"long.txt"}`,
			[]string{"1: This is line 1 of", "[stopped at line "}, []string{"curator"}},
		{"100 long lines", ask("What is on line 50?"), `{"path":"wide.txt"}`,
			[]string{"1: www", "100: www"}, []string{"curator", "…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := read(tc.ctx, tc.args)
			for _, s := range tc.has {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%.600s", s, out)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(out, s) {
					t.Errorf("output has %q:\n%.600s", s, out)
				}
			}
		})
	}
}
