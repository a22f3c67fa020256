// Package contact finds phone numbers and email addresses in text and
// tells whether another text holds them. It is the one home of what
// offgrid counts as a contact: the agent drops an answer's line that
// gives one no tool returned, and the benchmark counts such an answer
// fabricated. The 0.5B, asked for the butter supplier's phone number in
// a folder of French notes, answered "077 888 9999", which no file held.
package contact

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/offgrid-ai/offgrid/internal/calendar"
)

// phone matches a phone number as people write it: an optional "+" and
// country code, an optional area code in parentheses, and groups of
// digits joined by single spaces, dots, dashes or slashes ("04 78 29 61
// 35", "+33 4 78 29 61 35", "(555) 123-4567", "010-1234567890", which
// the 0.5B made up for a school in Seoul), or one run of 9 to 15
// digits that begins with "+" or 0 ("0478296135"; not a checksum or
// a size).
var phone = regexp.MustCompile(`(?:\+\d{1,3}[ .\-/]?)?(?:\(\d{1,4}\)[ .\-/]?)?\b\d{1,4}(?:[ .\-/]\d{2,10}){1,6}\b|(?:\+|\b0)\d{8,14}\b`)

// thousands matches a number written with dots between its thousands
// ("10.000.000").
var thousands = regexp.MustCompile(`^\d{1,3}(?:\.\d{3})+$`)

// email matches an email address: its domain ends in letters, so that a
// module's version ("golangci-lint@v1.59.1") is none.
var email = regexp.MustCompile(`[\p{L}\p{N}._%+\-]+@[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)*\.\p{L}{2,}\b`)

// minDigits is the fewest digits of a phone number; fewer is an amount,
// a time or a code.
const minDigits = 7

// keyDigits is how many of a phone number's last digits tell it apart:
// "+33 4 78 29 61 35" and "04 78 29 61 35" are one number.
const keyDigits = 8

// Find returns the phone numbers and email addresses in text, as
// written, in the order they appear. A number of fewer than 7 digits,
// a date and a decimal ("1553.80") are none.
func Find(text string) []string {
	type span struct{ start, end int }
	var found []span
	for _, m := range email.FindAllStringIndex(text, -1) {
		found = append(found, span{m[0], m[1]})
	}
	emails := len(found)
	for _, m := range phone.FindAllStringIndex(text, -1) {
		if !isPhone(text[m[0]:m[1]]) || slices.ContainsFunc(found[:emails], func(e span) bool { return m[0] < e.end && e.start < m[1] }) {
			continue
		}
		found = append(found, span{m[0], m[1]})
	}
	slices.SortFunc(found, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = text[f.start:f.end]
	}
	return out
}

// isPhone reports whether s, which phone matched, is a phone number: it
// has minDigits digits or more and is no date, decimal or number in
// thousands.
func isPhone(s string) bool {
	if len(digits(s)) < minDigits || calendar.InNumbers(s) || thousands.MatchString(s) {
		return false
	}
	whole, frac, ok := strings.Cut(s, ".")
	return !ok || strings.ContainsAny(frac, " .-/") || strings.ContainsAny(whole, " -/()+")
}

// Held reports whether text holds the contact c (one that Find
// returned): an email address in any case; a phone number whose last
// digits text holds in any format ("04.78.29.61.35" holds "+33 4 78 29
// 61 35").
func Held(c, text string) bool {
	if strings.Contains(c, "@") {
		return strings.Contains(strings.ToLower(text), strings.ToLower(c))
	}
	key := digits(c)
	if len(key) > keyDigits {
		key = key[len(key)-keyDigits:]
	}
	return strings.Contains(joined(text), key)
}

// digits returns the digits of s.
func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// joined returns text without the marks that separate a number's groups
// (spaces, dots, dashes, slashes, parentheses, "+", ":" and ","), so
// that a number's digits are together in whatever format it was written.
func joined(text string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) && r != '\n' || strings.ContainsRune(".-/()+:,", r) {
			return -1
		}
		return r
	}, text)
}
