package calendar

import (
	"fmt"
	"slices"
	"testing"
)

func TestDays(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []Day
	}{
		{"Due 2026-02-08, paid 2026/03/01.", []Day{{2026, 2, 8, false}, {2026, 3, 1, false}}},
		{"ISO 8601: 2026-11-30T18:43:44Z", []Day{{2026, 11, 30, false}}},
		{"le 08/02/2026", []Day{{2026, 2, 8, true}}},
		{"am 8.2.2026 um 9", []Day{{2026, 2, 8, true}}},
		{"2023년 10월 15일에 쉬어요", []Day{{2023, 10, 15, false}}},
		{"2026年2月8日 星期日", []Day{{2026, 2, 8, false}}},
		{"depuis le 8 février 2026", []Day{{2026, 2, 8, false}}},
		{"arriva il 12 dicembre 2024.", []Day{{2024, 12, 12, false}}},
		{"o mutirão é 12 de novembro de 2024", []Day{{2024, 11, 12, false}}},
		{"since February 8, 2026", []Day{{2026, 2, 8, false}}},
		{"Samstag, 28. November 2026", []Day{{2026, 11, 28, false}}},
		// No year, a number, a version, a file's size: no date.
		{"on 12/11, at 3 mais 2024", nil},
		{"version 1.4.2, total 1553.80, 2024-13-45, 12024-01-01", nil},
		{"2024-10-08-reuniao.md", []Day{{2024, 10, 8, false}}},
	} {
		if got := Days(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Days(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestHeld(t *testing.T) {
	feb8 := Day{2026, 2, 8, false}
	for _, tc := range []struct {
		day  Day
		text string
		want bool
	}{
		{feb8, "C-006,Yuki Tanaka,Berlin,2026-02-08", true},
		{feb8, "Monday, 8 February 2026", true},
		{feb8, "le 08/02/2026", true},
		{feb8, "2026年2月8日", true},
		{Day{2026, 8, 2, true}, "2026-02-08", true},                         // "08/02/2026" either way round
		{Day{2024, 11, 12, false}, "- Mutirão de revisão: 12/11, 9h", true}, // the year added
		{Day{2024, 11, 12, false}, "o mutirão é dia 12 de novembro", true},  // the same
		{Day{2023, 10, 15, false}, "휴원일: 일요일\n개원: 2019-03-02", false},       // invented
		{feb8, "2026-02-09 and 2025-02-08", false},
	} {
		if got := Held(tc.day, tc.text); got != tc.want {
			t.Errorf("Held(%v, %q) = %v, want %v", tc.day, tc.text, got, tc.want)
		}
	}
}

func ExampleDays() {
	fmt.Println(Days("Livraison le 12 dicembre 2024, facture du 2024-11-30."))
	// Output: [{2024 11 30 false} {2024 12 12 false}]
}

func TestInNumbers(t *testing.T) {
	for s, want := range map[string]bool{
		"2025-09-15":        true,
		"2026-11-29 20":     true, // of a listing's "2026-11-29 20:15"
		"2026/2026-02-14":   true, // of a path
		"15/09/2025":        true,
		"15.09.25":          true,
		"04 78 29 61 35":    false,
		"+33 4 78 29 61 35": false,
		"010-4821-7730":     false,
	} {
		if got := InNumbers(s); got != want {
			t.Errorf("InNumbers(%q) = %v, want %v", s, got, want)
		}
	}
}
