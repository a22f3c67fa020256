package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

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
			var pattern string
			for _, c := range turn.Calls {
				if c.Name == "grep_search" && c.ByAgent {
					var args struct{ Pattern string }
					json.Unmarshal(c.Arguments, &args)
					pattern = args.Pattern
				}
			}
			if pattern != tc.pattern {
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
