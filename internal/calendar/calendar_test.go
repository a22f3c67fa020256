package calendar

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestDate(t *testing.T) {
	day := time.Date(2026, time.November, 28, 9, 30, 0, 0, time.UTC) // a Saturday
	tests := []struct {
		lang, want string
		ok         bool
	}{
		{"en", "Saturday, 28 November 2026", true},
		{"fr", "samedi 28 novembre 2026", true},
		{"de", "Samstag, 28. November 2026", true},
		{"es", "sábado, 28 de noviembre de 2026", true},
		{"zh", "2026年11月28日 星期六", true},
		{"pt", "sábado, 28 de novembro de 2026", true},
		{"it", "sabato 28 novembre 2026", true},
		{"ja", "2026年11月28日 土曜日", true},
		{"ko", "2026년 11월 28일 토요일", true},
		{"nl", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := Date(tt.lang, day)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Date(%q) = %q, %v; want %q, %v", tt.lang, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWeekdayEveryLanguage(t *testing.T) {
	for _, lang := range Languages {
		seen := map[string]bool{}
		for d := time.Sunday; d <= time.Saturday; d++ {
			name, ok := Weekday(lang, d)
			if !ok || name == "" || seen[name] {
				t.Errorf("Weekday(%q, %v) = %q, %v: want a name of its own", lang, d, name, ok)
			}
			seen[name] = true
		}
		if _, ok := Date(lang, time.Date(2024, time.February, 29, 0, 0, 0, 0, time.UTC)); !ok {
			t.Errorf("Date(%q) is not written", lang)
		}
	}
	if _, ok := Weekday("en", time.Weekday(7)); ok {
		t.Error("Weekday(en, 7) is a day")
	}
}

func ExampleDate() {
	t := time.Date(2025, time.March, 4, 0, 0, 0, 0, time.UTC)
	for _, lang := range []string{"en", "de", "ja"} {
		s, _ := Date(lang, t)
		fmt.Println(s)
	}
	// Output:
	// Tuesday, 4 March 2025
	// Dienstag, 4. März 2025
	// 2025年3月4日 火曜日
}

func TestWeekdays(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []time.Weekday
	}{
		{"Today is Saturday.", []time.Weekday{time.Saturday}},
		{"Hoy es lunes, no sábado.", []time.Weekday{time.Monday, time.Saturday}},
		{"今天是星期五。", []time.Weekday{time.Friday}},
		{"今日は日曜日です。", []time.Weekday{time.Sunday}},
		{"Der heute ist den MONTAG", []time.Weekday{time.Monday}},
		{"Die Montage beginnt um acht.", nil}, // a longer word
		{"samedi-dimanche", []time.Weekday{time.Sunday, time.Saturday}},
		{"今天星期几？", nil},
		{"2026-11-28", nil},
		{"Hoje é segunda-feira.", []time.Weekday{time.Monday}},
		{"오늘은 월요일이에요.", []time.Weekday{time.Monday}}, // with its particle
	} {
		if got := Weekdays(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Weekdays(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
