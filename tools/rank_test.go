package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrepRanked: a pattern of several words that no line holds as
// written gets the lines holding the most of its words, rarer words
// counting more; words are matched whole, as identifier parts or as the
// start of a longer word, never inside another word.
func TestGrepRanked(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"README.md":               "The service is small.\nIt is a service for the team.\nSee the config for the port.\n",
		"config/settings.yaml":    "server:\n  listen_port: 8042\n  workers: 3\n",
		"app/report.py":           "import os\n\ndef report():\n    return 'the report'\n",
		"notes/2024-05-14.md":     "## Pump\n- Decision: buy a 24V pump, budget 120 EUR.\n- The team met.\n",
		"internal/parser.go":      "package parser\n\nfunc ParseLine(s string) {}\n",
		"internal/parser_test.go": "package parser\n\nfunc TestParse(t *testing.T) {\n\tParseLine(\"a\")\n\tParseLine(\"b\")\n}\n",
		"data/water.csv":          "date,zone,water_l\n2024-06-01,A,8.5\n",
		"docs/valves.md":          "Valve A is on pin 27.\n",
		"data/orders.csv":         "order,product,qty\nS-1,P-104,2\nS-2,P-101,1\n",
		"schema/order.json":       "{\"product\": {\"pattern\": \"^P-[0-9]{3}$\"}, \"product_id\": 104}\n",
		"journal/2024-05-20.md":   "Made shakshuka for the team.\n",
		"recipes/shakshuka.md":    "# Eggs in tomato sauce\n\nFry the onions.\n",
		"contacts.md":             "# Contacts\n\n| Name | Phone number |\n|------|:-----:|\n| Anna Keller | +33 6 12 |\n",
		"journal/2024-05-21.md":   "Anna lost her phone charger.\n",
		"atas/reuniao-marco.md":   "Presentes: Renata, Joaquim\n- O preço da revisão passa para R$ 150.\n",
		"reports/q3.md":           "# Quarter\n\nsome products to watch\n- P-107 sold out\n",
		"reports/q2.md":           "- P-107 sold well\n",
		"data/stock.csv":          "id,qty\nP-107,3\n",
		"config/garden.yaml":      "vents:\n  motor_pin: 23\n\n  # in °C\n  open_above_c: 28\nfan:\n  pin: 24\n",
		"config/app.toml":         "[database]\nport = 5432\n\n[cache]\nport = 6379\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	r, err := Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pattern, first string
		absent         []string
	}{
		{"pump decision", "notes/2024-05-14.md:2: - Decision: buy a 24V pump, budget 120 EUR.", nil},
		{"service port", "README.md:1: The service is small.", []string{"app/report.py"}}, // not "report" nor "import"
		{"which port does it listen on", "config/settings.yaml:2:   listen_port: 8042", nil},
		// Among lines of equal words, the least indented first: the
		// declaration, not the test's two calls.
		{"parse_line function", "internal/parser.go:3: func ParseLine(s string) {}", nil},
		// A table's row holds its header's words.
		{"zone A water total", "data/water.csv:2: 2024-06-01,A,8.5 (date: 2024-06-01, zone: A, water_l: 8.5)", nil},
		// An identifier is one term: the schema's "P-" and "104" are not
		// it. A table's row is followed by its cells named by the header.
		{"product P-104", "data/orders.csv:2: S-1,P-104,2 (order: S-1, product: P-104, qty: 2)", nil},
		// A code weighs twice: a line with P-107 before one with a
		// plural that a single file holds.
		{"P-107 products", "reports/q3.md:4: - P-107 sold out", nil},
		// A line holds its file's path's words: the recipe named after
		// the dish before the journal line naming it; not its blank line,
		// which holds nothing else.
		{"shakshuka typo", "recipes/shakshuka.md:1: # Eggs in tomato sauce", []string{"recipes/shakshuka.md:2:"}},
		// A Markdown table's row holds its header's words too: before
		// the journal line that has two of the three.
		{"Anna phone number", "contacts.md:5: | Anna Keller | +33 6 12 |", nil},
		// Accents do not count, on either side: "revisao" is typed
		// without them, "reunião" names the file with them.
		{"preco revisao reunião", "atas/reuniao-marco.md:2: - O preço da revisão passa para R$ 150.", nil},
		// A configuration line holds the words of the keys it is under:
		// YAML's less indented keys, a TOML or INI file's section.
		{"fan pin", "config/garden.yaml:7:   pin: 24", nil},
		{"cache port", "config/app.toml:5: port = 6379", nil},
		// A blank line or a comment holds nothing of them.
		{"database port", "config/app.toml:2: port = 5432", []string{"config/app.toml:3:"}},
		{"vents motor", "config/garden.yaml:2:   motor_pin: 23", []string{"config/garden.yaml:3:", "config/garden.yaml:4:"}},
	} {
		res := r.Execute(context.Background(), "grep_search", json.RawMessage(`{"pattern": "`+tc.pattern+`"}`))
		lines := strings.Split(res.Text(), "\n")
		if !res.Success || len(lines) < 2 || !strings.HasPrefix(lines[0], "No line contains") || lines[1] != tc.first {
			t.Errorf("grep_search %q:\n%s\nwant first %q", tc.pattern, res.Text(), tc.first)
		}
		for _, a := range tc.absent {
			if strings.Contains(res.Text(), a) {
				t.Errorf("grep_search %q shows %s:\n%s", tc.pattern, a, res.Text())
			}
		}
	}
	// One word that no line holds: no ranking, no match.
	res := r.Execute(context.Background(), "grep_search", json.RawMessage(`{"pattern": "zeppelin"}`))
	if !strings.HasPrefix(res.Text(), "No matches for") {
		t.Errorf("grep_search zeppelin: %s", res.Text())
	}
	// Several words, none held anywhere: no match either.
	res = r.Execute(context.Background(), "grep_search", json.RawMessage(`{"pattern": "zeppelin quux"}`))
	if !strings.HasPrefix(res.Text(), "No matches for") {
		t.Errorf("grep_search zeppelin quux: %s", res.Text())
	}
}
