package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestOtherScript(t *testing.T) {
	for _, tc := range []struct {
		paths []string
		want  bool
	}{
		{[]string{"README.md", "config/설정.yaml", "수강생.csv", "회의록/2024-09-02-정기회의.md"}, true},
		{[]string{"README.md", "go.mod", "main.go", "docs/说明.md"}, true}, // one in four
		{[]string{"README.md", "go.mod", "main.go", "parser.go", "docs/说明.md"}, false},
		{[]string{"atas/2024-09-10-reuniao.md", "dados/estoque.csv", "câmara.md"}, false}, // Latin, accents and all
		{[]string{"заметки/встреча.md"}, true},
		{nil, false},
	} {
		if got := otherScript(tc.paths); got != tc.want {
			t.Errorf("otherScript(%q) = %v, want %v", tc.paths, got, tc.want)
		}
	}
}

func TestAgentFilesLanguage(t *testing.T) {
	const request = "quem faz o pedido pro fornecedor?"
	for _, tc := range []struct {
		name    string
		on      bool
		replies []string // intent, the words, [the language,] the answer
		pattern string
	}{
		{"a folder in Portuguese: the request's words too", true, []string{"read", "supplier order", "Portuguese", "O Joaquim."}, "supplier order quem faz pedido pro fornecedor"},
		{"a folder in English: the model's words alone", true, []string{"read", "supplier order", "English", "Joaquim."}, "supplier order"},
		{"the assist off: no choice", false, []string{"read", "supplier order", "Joaquim."}, "supplier order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, reg := toolsOver(t, map[string]string{
				"atas/2024-09-10-reuniao.md": "# Ata\n\n- Joaquim faz o pedido de peças pro fornecedor.\n",
				"dados/estoque.csv":          "produto,unidades\ncâmara 29,12\n",
			})
			eng := &fakeEngine{t: t, replies: tc.replies}
			a := searchingAgent(t, dir, reg, eng, false)
			a.opts.FilesLanguage = tc.on
			turn, err := a.Send(context.Background(), request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if pattern := ownSearch(turn); pattern != tc.pattern {
				t.Errorf("searched %q, want %q", pattern, tc.pattern)
			}
			asked := false
			for _, p := range eng.prompts {
				if strings.Contains(p, "atas/2024-09-10-reuniao.md, dados/estoque.csv<|im_end|>") && strings.Contains(p, "the language of the words in their names") {
					asked = true
				}
			}
			if asked != tc.on {
				t.Errorf("the folder's language asked: %v, want %v", asked, tc.on)
			}
			if eng.calls != len(tc.replies) {
				t.Errorf("%d completions, want %d", eng.calls, len(tc.replies))
			}
		})
	}
}

// TestAgentFilesLanguageUnasked: a folder whose names are in Hangul, or
// whose names are plain ASCII but whose text is Turkish, is searched for
// the request's own words too, without asking the model the files'
// language.
func TestAgentFilesLanguageUnasked(t *testing.T) {
	for _, tc := range []struct {
		name            string
		files           map[string]string
		request, answer string
		words, pattern  string
	}{
		{"Hangul names", map[string]string{
			"회의록/2024-11-18-연주회준비.md": "# 회의\n\n- 연주회는 12월 21일로 정했다.\n",
			"수강생.csv": "이름,반\n김하늘,초등부\n",
		}, "지난번 회의에서 뭐 정했는지 알려줘", "연주회는 12월 21일로 정했어요.", "meeting decision", "meeting decision 지난번 회의에서 정했는지 알려줘"},
		{"Turkish text", map[string]string{
			"toplantilar/2026-11-02.md": "# Toplantı notları\n\n- Kahve fiyatı 12 liradan 14 liraya çıkıyor; Ayşe tedarikçiyle görüşecek.\n- Çay ve simit fiyatları aynı kalıyor.\n",
			"veri/fiyatlar.csv":         "ürün,fiyat\nçay,3\nkahve,12\nsimit,5\n",
		}, "Kahve fiyatı ne olacak?", "14 lira.", "coffee price", "coffee price Kahve fiyatı olacak"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, reg := toolsOver(t, tc.files)
			eng := &fakeEngine{t: t, replies: []string{"read", tc.words, tc.answer}}
			a := searchingAgent(t, dir, reg, eng, false)
			a.opts.FilesLanguage = true
			turn, err := a.Send(context.Background(), tc.request, nil)
			if err != nil {
				t.Fatal(err)
			}
			if pattern := ownSearch(turn); pattern != tc.pattern {
				t.Errorf("searched %q, want %q", pattern, tc.pattern)
			}
			if eng.calls != 3 {
				t.Errorf("%d completions, want 3 (no choice of the language)", eng.calls)
			}
		})
	}
}

func TestAccented(t *testing.T) {
	english := strings.Repeat("Sales, stock and customer data for the shop on Lindenstraße, plus the scripts that turn them into the quarterly report. Run the export first, then check the totals against the invoices before you send anything out. ", 3)
	for _, tc := range []struct {
		name, text string
		want       bool
	}{
		{"English with a German street", english, false},
		{"Turkish", strings.Repeat("Toplantı notları: kahve fiyatı çıkıyor, Ayşe görüşecek. ", 3), true},
		{"Polish", strings.Repeat("Zamówienia od dostawcy przychodzą w środę, płatność przelewem. ", 3), true},
		{"Chinese", strings.Repeat("会议记录：下周三之前把订单发给供应商。", 8), true},
		{"too little text", "çay ve simit", false},
		{"none", "", false},
	} {
		if got := accented(tc.text); got != tc.want {
			t.Errorf("%s: accented = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// ownSearch returns the pattern of the turn's last grep_search of
// offgrid's own (search-first), "" for none.
func ownSearch(turn Turn) string {
	var pattern string
	for _, c := range turn.Calls {
		if c.Name == "grep_search" && c.ByAgent {
			var args struct{ Pattern string }
			json.Unmarshal(c.Arguments, &args)
			pattern = args.Pattern
		}
	}
	return pattern
}
