// Package calendar writes a date in words in the languages offgrid's
// small models read best: English, French, German, Spanish, Portuguese,
// Italian, Chinese, Japanese and Korean. It is data for a model to copy and a checker to compare, not
// a gate: the 0.5B, given "Saturday", answered a German "welcher
// Wochentag ist heute?" with "Montag" and a Chinese one with "星期五".
package calendar

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Languages are the languages Date writes, as ISO 639-1 codes, English
// first.
var Languages = []string{"en", "fr", "de", "es", "pt", "it", "zh", "ja", "ko"}

// names are the languages' names for themselves.
var names = map[string]string{"en": "English", "fr": "français", "de": "Deutsch", "es": "español", "pt": "português", "it": "italiano", "zh": "中文", "ja": "日本語", "ko": "한국어"}

// Name returns language lang's name for itself ("Deutsch"), or "" for a
// language Languages does not hold.
func Name(lang string) string { return names[lang] }

// weekdays are the names of the days, Sunday first, by language.
var weekdays = map[string][7]string{
	"en": {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"},
	"fr": {"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"},
	"de": {"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"},
	"es": {"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"},
	"zh": {"星期日", "星期一", "星期二", "星期三", "星期四", "星期五", "星期六"},
	"pt": {"domingo", "segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado"},
	"it": {"domenica", "lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato"},
	"ja": {"日曜日", "月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日"},
	"ko": {"일요일", "월요일", "화요일", "수요일", "목요일", "금요일", "토요일"},
}

// months are the names of the months, January first, by language; the
// Chinese, Japanese and Korean dates are written with numbers.
var months = map[string][12]string{
	"en": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"fr": {"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
	"de": {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
	"es": {"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
	"pt": {"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
	"it": {"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"},
}

// Weekday returns the name of day d in language lang, and false for a
// language Languages does not hold.
func Weekday(lang string, d time.Weekday) (string, bool) {
	names, ok := weekdays[lang]
	if !ok || d < time.Sunday || d > time.Saturday {
		return "", false
	}
	return names[d], true
}

// Date returns t's weekday and date as written in language lang
// ("Saturday, 28 November 2026", "samedi 28 novembre 2026",
// "2026年11月28日 土曜日"), and false for a language Languages does not
// hold.
func Date(lang string, t time.Time) (string, bool) {
	day, ok := Weekday(lang, t.Weekday())
	if !ok {
		return "", false
	}
	y, m, d := t.Date()
	switch lang {
	case "en":
		return fmt.Sprintf("%s, %d %s %d", day, d, months[lang][m-1], y), true
	case "fr", "it":
		return fmt.Sprintf("%s %d %s %d", day, d, months[lang][m-1], y), true
	case "es", "pt":
		return fmt.Sprintf("%s, %d de %s de %d", day, d, months[lang][m-1], y), true
	case "de":
		return fmt.Sprintf("%s, %d. %s %d", day, d, months[lang][m-1], y), true
	case "ko":
		return fmt.Sprintf("%d년 %d월 %d일 %s", y, m, d, day), true
	default: // zh, ja
		return fmt.Sprintf("%d年%d月%d日 %s", y, m, d, day), true
	}
}

// Weekdays returns the days text names, in any of Languages, Sunday
// first: a name in letters as a word of its own ("Montag", not
// "Montage"; any case), a Chinese or Japanese one anywhere.
func Weekdays(text string) []time.Weekday {
	lower := strings.ToLower(text)
	var days []time.Weekday
	for _, lang := range Languages {
		for d, name := range weekdays[lang] {
			if named(lower, strings.ToLower(name)) && !slices.Contains(days, time.Weekday(d)) {
				days = append(days, time.Weekday(d))
			}
		}
	}
	slices.Sort(days)
	return days
}

// named reports whether text holds name: where name begins and ends with
// a letter of a script written with spaces, not inside a longer word.
func named(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if !wordLetter(before) && !wordLetter(after) || !spaced(name) {
			return true
		}
		i = start + 1
	}
}

// wordLetter reports whether r is a letter of a word.
func wordLetter(r rune) bool { return r != utf8.RuneError && unicode.IsLetter(r) }

// spaced reports whether name is matched as a word of its own: its first
// letter is not Han, kana or Hangul (a Korean word takes its particles
// without a space: "월요일이에요").
func spaced(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
