// Package language tells which language a request is written in, among
// those offgrid writes its own sentences in (calendar.Languages). It
// chooses how offgrid words what it adds to an answer, never what the
// model may do, and it fails open: "" for a text it cannot tell, which
// callers take as English.
//
// Japanese is told by its kana and Chinese by Han characters without
// them; a text in Latin letters is compared, by its letter trigrams,
// with English, French, German and Spanish (whatlanggo). On the requests
// of the general suite's dev split it was right for 122 of 128; the 0.5B,
// asked under a grammar, called English and Chinese requests French.
package language

import (
	"unicode"

	"github.com/abadojack/whatlanggo"
)

// latin are the languages in Latin letters Detect tells apart, by their
// codes in calendar.Languages.
var latin = map[whatlanggo.Lang]string{
	whatlanggo.Eng: "en",
	whatlanggo.Fra: "fr",
	whatlanggo.Deu: "de",
	whatlanggo.Spa: "es",
}

// minConfidence is the trigram comparison's confidence under which a
// text in Latin letters is not told: the dev split's misses ("what does
// `make lint` actually run?" as French) were all under it.
const minConfidence = 0.5

// Detect returns the ISO 639-1 code of the language text is written in
// (en, fr, de, es, zh or ja), or "" when it cannot tell.
func Detect(text string) string {
	han, letters := false, 0
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			return "ja"
		case unicode.Is(unicode.Han, r):
			han = true
		case unicode.IsLetter(r):
			letters++
		}
	}
	if han {
		return "zh"
	}
	if letters == 0 {
		return ""
	}
	whitelist := map[whatlanggo.Lang]bool{}
	for l := range latin {
		whitelist[l] = true
	}
	info := whatlanggo.DetectWithOptions(text, whatlanggo.Options{Whitelist: whitelist})
	if code, ok := latin[info.Lang]; ok && info.Confidence >= minConfidence {
		return code
	}
	return ""
}
