package contact

import (
	"fmt"
	"slices"
	"testing"
)

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Téléphone : 04 78 29 61 35\nCourriel : bonjour@fournil-croixrousse.fr", []string{"04 78 29 61 35", "bonjour@fournil-croixrousse.fr"}},
		{"Ring +33 4 78 29 61 35 or (555) 123-4567.", []string{"+33 4 78 29 61 35", "(555) 123-4567"}},
		{"电话：021-6234-5678，邮箱 li.wei@example.cn", []string{"021-6234-5678", "li.wei@example.cn"}},
		{"Tel. 0478296135, Fax 04.78.29.61.36", []string{"0478296135", "04.78.29.61.36"}},
		{"학원 전화번호는 010-1234567890입니다. 02-3142-7789", []string{"010-1234567890", "02-3142-7789"}},
		{"Le 2025-09-15, 15/09/2025 et 15.09.25 : 1553.80 € pour 12 345 pains, port 8080.", nil},
		{"commit ab12 34 56 78, v1.2.3, 10:30, crc 4261931497, 10.000.000 €", nil},
		{"journal/2026/2026-02-14.md, 2026-11-29 20:15, INV-002-2026-09-30", nil},
		{"mail tom.reyes+bills@gmail.com 2024", []string{"tom.reyes+bills@gmail.com"}},
		{"go install golangci-lint@v1.59.1 and pkg@v1.59", nil},
	} {
		if got := Find(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Find(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestHeld(t *testing.T) {
	const text = "12: Beurre — Laiterie Morel, tél. 04.74.55.12.90, contact@laiterie-morel.fr\n13: Farine : +33 4 78 60 21 17"
	for _, tc := range []struct {
		contact string
		want    bool
	}{
		{"04 74 55 12 90", true},
		{"+33 4 74 55 12 90", true},
		{"0478602117", true},
		{"Contact@Laiterie-Morel.fr", true},
		{"077 888 9999", false},
		{"04 74 55 12 91", false},
		{"contact@laiterie-morel.com", false},
	} {
		if got := Held(tc.contact, text); got != tc.want {
			t.Errorf("Held(%q) = %v, want %v", tc.contact, got, tc.want)
		}
	}
}

func ExampleFind() {
	answer := "The butter supplier is Laiterie Morel: 077 888 9999, orders@morel.example."
	for _, c := range Find(answer) {
		fmt.Println(c, Held(c, "Laiterie Morel, tél. 04 74 55 12 90"))
	}
	// Output:
	// 077 888 9999 false
	// orders@morel.example false
}
