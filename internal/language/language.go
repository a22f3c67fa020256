// Package language tells which language a request is written in, among
// those offgrid writes its own sentences in (calendar.Languages). It
// chooses how offgrid words what it adds to an answer, never what the
// model may do, and it fails open: "" for a text it cannot tell, which
// callers take as English.
//
// Japanese is told by its kana, Korean by its Hangul and Chinese by Han
// characters without them; a text in Latin letters is compared, by its
// letter trigrams, with English, French, German, Spanish, Portuguese and
// Italian (whatlanggo). On the requests of the general suite's dev split
// it is right for 166 of 177 and calls one Portuguese request Spanish
// (the others it cannot tell, and they are taken as English); without
// Portuguese and Italian it was right for 156 and called nine Spanish.
// With Dutch, it called "How many orders did we get in Q3?" Dutch. The
// 0.5B, asked under a grammar, called English and Chinese requests
// French. A text whatlanggo, among all the languages it knows, reliably
// finds in another (Polish, Hungarian) is not told either.
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

// all are latin and Portuguese and Italian, compared first. More
// languages lower the comparison's confidence: in short requests
// ("Wie spät ist es gerade, bitte?") it fell under minConfidence. Such a
// text is compared again among latin alone, and told if both
// comparisons found the same language: compared among latin alone,
// Portuguese requests were Spanish.
var all = map[whatlanggo.Lang]string{
	whatlanggo.Eng: "en",
	whatlanggo.Fra: "fr",
	whatlanggo.Deu: "de",
	whatlanggo.Spa: "es",
	whatlanggo.Por: "pt",
	whatlanggo.Ita: "it",
}

// minConfidence is the trigram comparison's confidence under which a
// text in Latin letters is not told: the dev split's misses ("what does
// `make lint` actually run?" as French) were all under it.
const minConfidence = 0.5

// Detect returns the ISO 639-1 code of the language text is written in
// (en, fr, de, es, pt, it, zh, ja or ko), or "" when it cannot tell.
func Detect(text string) string {
	han, letters := false, 0
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			return "ja"
		case unicode.Is(unicode.Hangul, r):
			return "ko"
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
	// A text that is plainly in a language not among them is not told:
	// compared among them alone, a Polish request was Italian.
	if info := whatlanggo.Detect(text); info.IsReliable() {
		if _, ok := all[info.Lang]; !ok {
			return ""
		}
	}
	code, sure := among(text, all)
	if sure {
		return code
	}
	if again, sure := among(text, latin); sure && again == code {
		return code
	}
	return ""
}

// among returns the code of the language of langs that text is most
// like, and whether the comparison is confident (minConfidence).
func among(text string, langs map[whatlanggo.Lang]string) (string, bool) {
	whitelist := map[whatlanggo.Lang]bool{}
	for l := range langs {
		whitelist[l] = true
	}
	info := whatlanggo.DetectWithOptions(text, whatlanggo.Options{Whitelist: whitelist})
	code, ok := langs[info.Lang]
	return code, ok && info.Confidence >= minConfidence
}
