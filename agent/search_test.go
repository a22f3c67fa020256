package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

func TestMarkedWords(t *testing.T) {
	for _, tc := range []struct {
		request string
		want    []string
	}{
		{"where's ParseLine defined?", []string{"ParseLine"}},
		{"Where do we mention product P-104? I need every file.", []string{"P-104"}},
		{"Anna got a new phone. Can you update that?", nil}, // both start a sentence
		{"Her number changed. Can you update Anna's?", []string{"Anna"}},
		{"Baisse le seuil de stock minimum à 6, on passe trop de commandes.", nil},
		{"哥伦比亚 Huila 涨价了，现在卖 11.25", []string{"Huila"}},
		{"Office Hub Altona は閉店したので", []string{"Office", "Hub", "Altona"}},
		{"김민수 선생님 연락처 알려줘", nil}, // Korean has spaces and no capitals
		{"rename MAX_WATERING_SECONDS to MAX_RUN_SECONDS", []string{"MAX_WATERING_SECONDS", "MAX_RUN_SECONDS"}},
	} {
		if got := markedWords(tc.request); !slices.Equal(got, tc.want) {
			t.Errorf("markedWords(%q) = %q, want %q", tc.request, got, tc.want)
		}
	}
}

func TestSearchPattern(t *testing.T) {
	for _, tc := range []struct {
		model, request string
		own            bool // the request's own words too (FilesLanguage)
		want           string
	}{
		{"pump decision", "what did we end up deciding about the pump?", false, "pump decision"},
		{"parse_line def", "where's ParseLine defined?", false, "ParseLine def"}, // the same key once: the request's spelling
		{"lower stock minimum 6", "Baisse le seuil de stock minimum à 6", false, "lower stock minimum"},
		{"a b c d e f g h i j", "", false, "a b c d e f g h"},
		// The request's words after the model's, each once, of three
		// letters or more, no small number.
		{"supplier responsible", "quem é o responsável pelo pedido de 12 peças?", true, "supplier responsible quem responsável pelo pedido peças"},
		{"Shimano files", "quais arquivos falam da Shimano?", true, "Shimano files quais arquivos falam"},
		// No words of a script written without spaces: its terms are
		// not words.
		{"grill", "グリル担当は誰？", true, "grill"},
		// Korean is written with spaces: its words are searched, of two
		// syllables or more.
		{"refund policy", "환불 정책은 뭐예요?", true, "refund policy 환불 정책은 뭐예요"},
		{"a b c d e f g h", "one two three four five six seven eight nine", true, "a b c d e f g h one two three four five six seven eight"},
	} {
		if got := searchPattern(tc.model, tc.request, tc.own); got != tc.want {
			t.Errorf("searchPattern(%q, %q, %v) = %q, want %q", tc.model, tc.request, tc.own, got, tc.want)
		}
	}
}

func TestInFolders(t *testing.T) {
	dir := func(p string) tools.Mention { return tools.Mention{Path: p, Dir: true} }
	for _, tc := range []struct {
		named []tools.Mention
		want  string
	}{
		{nil, ""},
		{[]tools.Mention{dir("config/")}, "config/**"},
		{[]tools.Mention{dir("app/utils"), dir("docs"), dir("./docs")}, "{app/utils/**,docs/**}"},
		{[]tools.Mention{dir("."), {Path: "a.md"}, {Path: "gone", Dir: true, Missing: true}}, ""},
		{[]tools.Mention{dir("notes [old]")}, `notes \[old\]/**`},
	} {
		if got := inFolders(tc.named); got != tc.want {
			t.Errorf("inFolders(%v) = %q, want %q", tc.named, got, tc.want)
		}
	}
}

func TestBestFile(t *testing.T) {
	s := "No line contains \"a b\" in **; the lines with the most of its words, rarer words counting more, best first:\nconfig/settings.yaml:7:   port: 8042\nREADME.md:12: The service\n"
	if got := bestFile(tools.Result{Success: true, Data: &s}); got != "config/settings.yaml" {
		t.Errorf("bestFile = %q", got)
	}
	none := "No matches for \"x\" in ** (3 files searched)\n"
	if got := bestFile(tools.Result{Success: true, Data: &none}); got != "" {
		t.Errorf("bestFile of no matches = %q", got)
	}
}

// TestAgentSearchFirst: a request about the files that names none is
// searched for with the model's words and the request's names, by a
// grep_search call of offgrid's; the result goes into the request and
// the file of the best line is read. A request that names a file, or
// that the model chose needs no files, is not searched.
func TestAgentSearchFirst(t *testing.T) {
	for _, tc := range []struct {
		name, request string
		replies       []string // intent, the words, the answer
		pattern, read string   // "" for no search, no read
		filter        string   // the search's file_filter
	}{
		{"searched", "Qu'est-ce qu'on a décidé pour la pompe ?", []string{"read", "pump decision", "A 24V pump."}, "pump decision", "notes/meeting.md", ""},
		{"a name of the request first", "where is ParseLine defined?", []string{"read", "parse_line def", "In parser.go."}, "ParseLine def", "parser.go", ""},
		{"nothing found", "Qui gère le barbecue ?", []string{"read", "barbecue", "Nobody.", "Nobody."}, "barbecue", "", ""},
		{"a file named", "What does notes/meeting.md say?", []string{"read", "It says a pump."}, "", "notes/meeting.md", ""},
		{"no files needed", "What is 7 squared?", []string{"none", "49"}, "", "", ""},
		// A listing is not searched; naming no folder, it is of the
		// working directory (readFirst).
		{"a listing: names, not content", "Quels fichiers y a-t-il ici ?", []string{"list", "notes/ and parser.go."}, "", "", ""},
		// README.md's line would rank first in the whole folder; a
		// question is given the folder's listing and the search's lines,
		// a change the best line's file.
		{"a folder named: searched in it", "What pump is in the notes folder?", []string{"read", "pump controller", "A 24V pump."}, "pump controller", "", "notes/**"},
		{"two folders named", "Which pump, per notes/ or docs/?", []string{"read", "pump controller", "A 24V pump."}, "pump controller", "", "{notes/**,docs/**}"},
		{"a change in the folder named", "In the notes folder, make the pump a smaller one.", []string{"change", "pump controller", "Done."}, "pump controller", "notes/meeting.md", "notes/**"},
		{"nothing found in the folder named", "Qui gère le barbecue ? Voir notes.", []string{"read", "barbecue", "Nobody.", "Nobody."}, "barbecue", "", "notes/**"},
		// A folder whose name starts with a dot is the project's too.
		{"a dot folder", "Which golangci-lint does CI run?", []string{"read", "golangci-lint version", "1.59."}, "CI golangci lint version", ".github/workflows/ci.yml", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, reg := toolsOver(t, map[string]string{
				"notes/meeting.md":         "## Pump\n- Decision: a 24V pump.\n",
				"parser.go":                "package p\n\nfunc ParseLine() {}\n",
				"README.md":                "A pump controller.\n",
				".github/workflows/ci.yml": "lint:\n  golangci-lint version: 1.59\n",
			})
			os.MkdirAll(filepath.Join(dir, "docs"), 0o755) // an empty folder
			eng := &fakeEngine{t: t, replies: tc.replies}
			a := searchingAgent(t, dir, reg, eng, false)
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			var pattern, read, filter string
			listed := false
			for _, c := range turn.Calls {
				var args struct {
					Pattern, Path string
					Filter        string `json:"file_filter"`
				}
				json.Unmarshal(c.Arguments, &args)
				switch {
				case c.Name == "grep_search" && c.ByAgent:
					pattern, filter = args.Pattern, args.Filter
				case c.Name == "ls" && c.ByAgent:
					listed = true
				case c.Name == "read_file" && c.ByAgent:
					read = args.Path
				}
			}
			if pattern != tc.pattern || read != tc.read || filter != tc.filter {
				t.Errorf("searched %q in %q and read %q, want %q in %q and %q; calls %+v", pattern, filter, read, tc.pattern, tc.filter, tc.read, turn.Calls)
			}
			// A question that names a folder, and a listing: it is listed
			// (readFirst).
			if want := tc.filter != "" && tc.replies[0] != "change" || tc.replies[0] == "list"; listed != want {
				t.Errorf("listed the folder: %v, want %v", listed, want)
			}
			where := ""
			if tc.filter != "" {
				where = " in " + tc.filter
			}
			req := a.History()[0].Content
			if tc.replies[0] == "list" && !strings.Contains(req, ".github/workflows/ci.yml") {
				t.Errorf("the listing of the working directory lacks its hidden folders' files:\n%s", req)
			}
			if tc.filter != "" && strings.Contains(req, "README.md:1:") {
				t.Errorf("searched outside %s:\n%s", tc.filter, req)
			}
			if (tc.read != "" || tc.filter != "") && tc.pattern != "" && tc.pattern != "barbecue" && !strings.Contains(req, "Searching the files"+where+" for \""+tc.pattern+"\" found:\n") {
				t.Errorf("the request lacks the search's result:\n%s", a.History()[0].Content)
			}
		})
	}
}

// searchingAgent is an agent over eng in dir with the assists that search
// and read for a question (SearchFirst, ReadFirst, ReadAnswer,
// ToolsByTopic), and PlainAnswer if plain.
func searchingAgent(t *testing.T, dir string, reg *tools.Registry, eng *fakeEngine, plain bool) *Agent {
	t.Helper()
	opts := Options{ToolsByTopic: true, ReadFirst: true, ReadAnswer: true, SearchFirst: true, PlainAnswer: plain}
	opts.LookIn(dir)
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
