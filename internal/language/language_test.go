package language

import (
	"fmt"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct{ text, want string }{
		{"What day of the week is it today? I have lost track completely.", "en"},
		{"Quel jour de la semaine sommes-nous aujourd'hui ?", "fr"},
		{"Welcher Wochentag ist heute? Ich muss den Plan schreiben.", "de"},
		{"¿Qué día de la semana es hoy? Necesito saberlo para la reunión.", "es"},
		{"今天星期几？", "zh"},
		{"README 里关于 Windows 的那一句删掉吧。", "zh"}, // Han and Latin: Chinese
		{"今日は何曜日ですか？", "ja"},                  // kana
		{"CHANGELOG の 1.4.2 に項目を追加して。", "ja"}, // kana among Latin
		{"会議", "zh"},                       // Han alone reads as Chinese
		{"", ""},                           // nothing to tell
		{"12:30 + 4", ""},                  // no letters
		{"where's ParseLine defined?", ""}, // too short to tell: English by default
		{"Che giorno è oggi? Devo prenotare il treno per domani.", "it"},
		{"quando vai ser o mutirão de revisão das crianças?", "pt"}, // not Spanish
		{"오늘 무슨 요일이에요?", "ko"},
		{"회의록에서 Kim 선생님 연락처 찾아줘", "ko"},                                      // Hangul among Latin
		{"How many orders did we get in Q3?", ""},                            // not Dutch: too short to tell
		{"O której otwieramy w soboty i ile kosztuje centrowanie koła?", ""}, // Polish, not Italian
		{"Podnieś minimalne zamówienie w sklepie do 60 zł.", ""},             // Polish, not Spanish
		{"Melyik alkatrész fogyott el a raktárból?", ""},                     // Hungarian
	}
	for _, tt := range tests {
		if got := Detect(tt.text); got != tt.want {
			t.Errorf("Detect(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func ExampleDetect() {
	for _, s := range []string{"Wie spät ist es gerade, bitte?", "今何時ですか", "现在几点了？"} {
		fmt.Println(Detect(s))
	}
	// Output:
	// de
	// ja
	// zh
}
