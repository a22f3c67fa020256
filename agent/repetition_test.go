package agent

import (
	"strings"
	"testing"
)

func TestRepetition(t *testing.T) {
	para := "Die Beschluss ist, dass wir ein zweites Relais-Board kaufen.\n\n"
	steps := "4. **Prüfen:**\n   - Prüfen Sie den Dienst.\n\n5. **Beenden:**\n   - Beenden Sie das Terminal.\n\n"
	tests := []struct {
		name, text, keep string // keep "" means no loop
	}{
		{"paragraph", "# Notiz\n\nInes und Marco.\n\n" + strings.Repeat(para, 3),
			"# Notiz\n\nInes und Marco.\n\n" + para},
		{"paragraph, more copies", "# Notiz\n\n" + strings.Repeat(para, 5) + "Die Besch",
			"# Notiz\n\n" + para},
		{"numbered items", "1. **Einloggen:** ssh stock-01.internal\n\n" + steps +
			"6. **Prüfen:**\n   - Prüfen Sie den Dienst.\n\n7. **Beenden:**\n   - Beenden Sie das Terminal.\n\n" +
			"8. **Prüfen:**\n   - Prüfen Sie den Dienst.\n\n9. **Beenden:**\n   - Beenden Sie das Terminal.\n\n",
			"1. **Einloggen:** ssh stock-01.internal\n\n" + steps},
		{"one line", "- milk\n" + strings.Repeat("- Broccoli Spinach Salad with Tomato: 1 cup\n", 3),
			"- milk\n- Broccoli Spinach Salad with Tomato: 1 cup\n"},
		{"within a line", "Zone A got 8.5 + " + strings.Repeat("64.5 + ", 20), "Zone A got 8.5 + 64.5 +"},
		{"within a line, cut in a word", "Zone A got 8.5 + " + strings.Repeat("64.5 + ", 20) + "64", "Zone A got 8.5 +"},
		{"within a line, Chinese", "答案：" + strings.Repeat("好的。", 20), "答案：好的。"},
		{"two copies are not a loop", "# Notiz\n\n" + strings.Repeat(para, 2), ""},
		{"short lines repeat", "}\n}\n}\n}\n\tx := 1\n\tx := 1\n\tx := 1\n", ""},
		{"rows of a table differ", "date,zone,water_l\n2024-06-01,A,8.5\n2024-06-01,B,4.0\n2024-06-02,A,8.5\n2024-06-02,B,4.0\n2024-06-03,A,8.5\n2024-06-03,B,4.0\n", ""},
		{"a rule of dashes", "| a | b |\n" + strings.Repeat("-", 200), ""},
		{"a few copies in a line", "Ha ha ha ha, no.", ""},
		{"plain answer", "The file data/readings.csv has 14 rows; zone A got 64.5 litres.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := repetition(tt.text)
			if tt.keep == "" {
				if ok {
					t.Fatalf("repetition found a loop, keeping %q", tt.text[:n])
				}
				return
			}
			if !ok {
				t.Fatalf("repetition found no loop in %q", tt.text)
			}
			if got := strings.TrimSpace(tt.text[:n]); got != strings.TrimSpace(tt.keep) {
				t.Errorf("kept %q, want %q", got, tt.keep)
			}
		})
	}
}
