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
	} {
		if got := Split(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.in, got, tc.want)
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
