package calendar

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Day is a date a text gives with its year: in numbers ("2026-02-08",
// "08/02/2026", "2026年2月8日", "2026년 2월 8일") or with a month's name in
// one of Languages ("8 février 2026", "February 8, 2026"). Either marks a
// date written day and month in numbers both ways round ("03/04/2026"),
// which is the 3rd of April or the 4th of March.
type Day struct {
	Year, Month, Date int
	Either            bool
}

// same reports whether d and e can be the same day.
func (d Day) same(e Day) bool {
	if d.Year != e.Year {
		return false
	}
	if d.Month == e.Month && d.Date == e.Date {
		return true
	}
	return (d.Either || e.Either) && d.Month == e.Date && d.Date == e.Month
}

var (
	ymd = regexp.MustCompile(`(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})`)
	dmy = regexp.MustCompile(`(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})`)
	cjk = regexp.MustCompile(`(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]`)
	// dayMonth matches a day and month in numbers without a year
	// ("12/11", "12.11."), for Held.
	dayMonth = regexp.MustCompile(`(\d{1,2})[-/.](\d{1,2})`)
)

// inNumbers matches a date written in numbers: year first ("2025-09-15")
// anywhere in a text, or day, month and a year of two or four digits
// ("15/09/2025", "15.09.25") as the whole of it.
var inNumbers = regexp.MustCompile(`\d{4}[.\-/]\d{1,2}[.\-/]\d{1,2}|^\d{1,2}[.\-/]\d{1,2}[.\-/]\d{2,4}$`)

// InNumbers reports whether s is, or holds, a date written in numbers:
// one that begins with its year anywhere in s ("2026-11-29 20" of a
// listing's "2026-11-29 20:15", "2026/2026-02-14" of a path), or one
// that ends with it as the whole of s ("15.09.25"). A phone number is
// none (package contact).
func InNumbers(s string) bool { return inNumbers.MatchString(s) }

// monthNames matches a month's name in any of Languages, and monthOf
// gives its number.
var monthNames, monthOf = func() (string, map[string]int) {
	of := map[string]int{}
	var alts []string
	for _, names := range months {
		for i, n := range names {
			n = strings.ToLower(n)
			if _, ok := of[n]; !ok {
				of[n] = i + 1
				alts = append(alts, regexp.QuoteMeta(n))
			}
		}
	}
	return strings.Join(alts, "|"), of
}()

var (
	dayNamed   = regexp.MustCompile(`(\d{1,2})(?:er|º|°|\.)?\s+(?:de\s+)?(` + monthNames + `)\b(?:,?\s+(?:de\s+)?(\d{4}))?`)
	namedDay   = regexp.MustCompile(`\b(` + monthNames + `)\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?`)
	numberTail = regexp.MustCompile(`^[-/.]?\d`)
)

// Days returns the dates text gives with their year, in the order of the
// patterns that find them. A number that goes on into more digits
// ("12024-01-01", "2024-01-015") is none, and neither is a month or day
// out of range.
func Days(text string) []Day {
	var out []Day
	add := func(d Day) {
		if d.Month >= 1 && d.Month <= 12 && d.Date >= 1 && d.Date <= 31 || d.Either && d.Date >= 1 && d.Date <= 12 && d.Month >= 1 && d.Month <= 31 {
			out = append(out, d)
		}
	}
	each(text, ymd, func(m []string) { add(Day{atoi(m[1]), atoi(m[2]), atoi(m[3]), false}) })
	each(text, dmy, func(m []string) { add(Day{atoi(m[3]), atoi(m[2]), atoi(m[1]), true}) })
	each(text, cjk, func(m []string) { add(Day{atoi(m[1]), atoi(m[2]), atoi(m[3]), false}) })
	lower := strings.ToLower(text)
	each(lower, dayNamed, func(m []string) {
		if m[3] != "" {
			add(Day{atoi(m[3]), monthOf[m[2]], atoi(m[1]), false})
		}
	})
	each(lower, namedDay, func(m []string) {
		if m[3] != "" {
			add(Day{atoi(m[3]), monthOf[m[1]], atoi(m[2]), false})
		}
	})
	return out
}

// Held reports whether text holds day d: the same date with its year in
// any form Days finds, or its day and month without a year ("12/11",
// "12 de novembro"), from which a year may have been added.
func Held(d Day, text string) bool {
	for _, e := range Days(text) {
		if d.same(e) {
			return true
		}
	}
	partial := false
	each(text, dayMonth, func(m []string) {
		partial = partial || d.same(Day{d.Year, atoi(m[2]), atoi(m[1]), true})
	})
	lower := strings.ToLower(text)
	each(lower, dayNamed, func(m []string) {
		partial = partial || d.same(Day{d.Year, monthOf[m[2]], atoi(m[1]), false})
	})
	each(lower, namedDay, func(m []string) {
		partial = partial || d.same(Day{d.Year, monthOf[m[1]], atoi(m[2]), false})
	})
	return partial
}

// each calls fn with the submatches of each match of re in text that
// neither follows a digit nor goes on into one.
func each(text string, re *regexp.Regexp, fn func(m []string)) {
	for _, ix := range re.FindAllStringSubmatchIndex(text, -1) {
		before, _ := utf8.DecodeLastRuneInString(text[:ix[0]])
		if before >= '0' && before <= '9' || numberTail.MatchString(text[ix[1]:]) {
			continue
		}
		m := make([]string, len(ix)/2)
		for i := range m {
			if ix[2*i] >= 0 {
				m[i] = text[ix[2*i]:ix[2*i+1]]
			}
		}
		fn(m)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
