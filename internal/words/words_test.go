package words

import (
	"fmt"
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Where is max_retries set?", []string{"Where", "is", "max_retries", "set"}},
		{"Größe der Datei: 1024 Bytes.", []string{"Größe", "der", "Datei", "1024", "Bytes"}},
		{"配置文件里的port是多少？", []string{"配", "置", "文", "件", "里", "的", "port", "是", "多", "少"}},
		{"notes.txtの2行目", []string{"notes", "txt", "の", "2", "行", "目"}},
		{"café-crème", []string{"café", "crème"}},
		{"환불 정책은 어디에 있나요?", []string{"환불", "정책은", "어디에", "있나요"}},
	} {
		if got := Split(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWidth(t *testing.T) {
	for w, want := range map[string]int{"": 0, "is": 2, "Größe": 5, "환불": 4, "설정": 4, "配置": 4, "ｐｏｒｔ": 8} {
		if got := Width(w); got != want {
			t.Errorf("Width(%q) = %d, want %d", w, got, want)
		}
	}
}

func TestParts(t *testing.T) {
	for in, want := range map[string][]string{
		"write_file":  {"write", "file"},
		"create-file": {"create", "file"},
		"multiply":    {"multiply"},
	} {
		if got := Parts(in); !slices.Equal(got, want) {
			t.Errorf("Parts(%q) = %q, want %q", in, got, want)
		}
	}
}

func ExampleSplit() {
	fmt.Println(Split("Où est défini MAX_RETRIES ? 設定ファイル"))
	// Output: [Où est défini MAX_RETRIES 設 定 フ ァ イ ル]
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		text, term string
		want       int
	}{
		{"max_header_bytes = 10 # header size", "header", 2}, // four bytes or more: a substring
		{"func parseline(s string)", "parseline", 1},
		{"port: 8042 # the report port", "port", 3}, // "report" holds "port"
		{"the cat sat on the mat", "at", 0},         // shorter: whole words only
		{"set -eu; set it", "set", 2},
		{"配置文件", "文", 1},
	} {
		if got := Count(tc.text, tc.term); got != tc.want {
			t.Errorf("Count(%q, %q) = %d, want %d", tc.text, tc.term, got, tc.want)
		}
	}
}

func TestTerms(t *testing.T) {
	for in, want := range map[string][]string{
		"product P-104?":            {"product", "P-104"},
		"version 1.4.2.":            {"version", "1.4.2"},
		"on 2026-07-02, order S-30": {"on", "2026-07-02", "order", "S-30"},
		"summer-party/plan.md":      {"summer", "party", "plan", "md"},
		"data/sales-2026-q3.csv":    {"data/sales-2026-q3.csv"},
		"P-104 が出てくる":               {"P-104", "が", "出", "て", "く", "る"},
		"a - 1":                     {"a", "1"},
	} {
		if got := Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeys(t *testing.T) {
	for in, want := range map[string][]string{
		"ParseLine(s)":      {"parseline", "parse", "line", "s"},
		"MAX_RETRIES = 3":   {"maxretries", "max", "retries", "3"},
		"DHT22 on pin 4":    {"dht22", "dht", "22", "on", "pin", "4"},
		"pump_pin: 17":      {"pumppin", "pump", "pin", "17"},
		"Größe des Puffers": {"größe", "des", "puffers"},
		"P-104":             {"p-104", "p", "104"},
		"get_item_by_sku()": {"getitembysku", "get", "item", "by", "sku"},
		"__version__ = 2.3": {"2.3", "version", "2", "3"},
		"summer-party.md":   {"summer", "party", "md"},
	} {
		if got := Keys(in); !slices.Equal(got, want) {
			t.Errorf("Keys(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		text, term string
		want       bool
	}{
		{"it listens", "listen", true},
		{"decisions", "decision", true},
		{"ParseLine", Key("parse_line"), true},
		{"import", "port", false},
		{"report", "port", false},
		{"pins", "pin", false}, // three bytes: whole words only
		{"pin", "pin", true},
		{"Lindenstraße", Key("Straße"), true}, // a compound's last part
		{"Kartoffelsalat", "salat", false},    // five bytes: starts only
		{"border", "order", false},
		{"func TestParseLine", "parseline", false}, // a name, not a compound
		{"min_stock: 8", "minimum", false},         // no shortened words
		{"list_items()", "listen", false},
		// A Korean word with its particles matches by its stem.
		{"회의록/2024-11-18.md", "회의에서", true},
		{"수업시간: 50", "시간을", true},
		{"휴원일: 일요일", "요일에", true},
		{"회의", "회의록은", true}, // a stem two syllables shorter
		{"학생", "학원은", false}, // two syllables left at least
	} {
		got := slices.ContainsFunc(Forms(tc.text), func(f Form) bool { return f.Matches(tc.term) })
		if got != tc.want {
			t.Errorf("%q matching %q = %v, want %v", tc.text, tc.term, got, tc.want)
		}
	}
}

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"días", "dias"},
		{"atas/2024-09-10-reunião.md", "atas/2024-09-10-reuniao.md"},
		{"Électrovanne", "Electrovanne"},
		{"Größe", "Große"}, // ß is a letter of its own
		{"ParseLine", "ParseLine"},
		{"がぎ", "がぎ"}, // a mark of another script stays
		{"Ação de graças", "Acao de gracas"},
	} {
		if got := Fold(tc.in); got != tc.want {
			t.Errorf("Fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
