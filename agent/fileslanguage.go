package agent

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/offgrid-ai/offgrid/internal/words"
)

// FilesLanguage: with SearchFirst, a folder whose files are not written
// in English is searched for the request's own words too. The model
// writes the words of search-first's search in English whatever the
// request's language, which finds English files, but not a bike shop's
// minutes in Portuguese: "quem é o responsável por fazer o pedido de
// peças pro fornecedor?" was searched as "supplier responsible for
// making the order of pieces", and a script was read. Added to every
// search, the request's words lost three tasks over English files (the
// lines shown changed); told the files' language, or shown the folder's
// names beside the examples, the 0.5B wrote English words still, or
// words in the request's language for English files. So the model names
// the files' language under a grammar, from their names, and only a
// folder it names in a language other than English has the request's
// words added: an English folder, or no choice, is searched as before.
// A folder whose paths (otherScript) or text (accented) are plainly not
// English needs no choice.

// filesLanguages are the languages the model may name a folder's files
// in; any but the first adds the request's words to the search.
var filesLanguages = []string{"English", "Portuguese", "Spanish", "French", "German", "Italian", "Dutch", "Polish", "Russian", "Turkish", "Chinese", "Japanese", "Korean", "Vietnamese", "Indonesian", "Arabic"}

// filesLanguageExamples are folders (some of their files) and the
// language their files are written in.
var filesLanguageExamples = []struct{ files, language string }{
	{"README.md, cmd/app/main.go, go.mod, internal/store/db.go", "English"},
	{"Notizen/Einkauf.md, Protokolle/2025-01-Sitzung.md, README.md, Rechnungen/Januar.csv, scripts/export.py", "German"},
	{"compte-rendus/2025-02-reunion.md, config.yaml, factures/janvier.csv, README.md", "French"},
	{"data/sales.csv, notes/meeting-2025-03.md, scripts/report.py", "English"},
	{"README.md, docs/guia-de-instalacion.md, notas/reunion-enero.md, src/main.py, ventas.csv", "Spanish"},
	{"笔记/会议记录.md, 数据/销售.csv, README.md", "Chinese"},
	{"bestellingen/2024-klanten.csv, notities/vergadering-mei.md, README.md", "Dutch"},
}

// filesLanguageMessages is the choice put to the model: examples of
// folders and their files' language, then the folder's files.
func filesLanguageMessages(files string) []Message {
	return fewShot("A user works in a folder of files. Reply with the language its files are written in: the language of the words in their names (README, config and code names are the same in every language).",
		filesLanguageExamples, func(ex struct{ files, language string }) (string, string) { return ex.files, ex.language }, files)
}

// foreignFiles reports whether the model names the working directory's
// files, as the intent's choice was told them (folderOverview), in a
// language other than English (Options.FilesLanguage); false when the
// assist is off, the folder is unknown, or the model does not choose.
func (a *Agent) foreignFiles(ctx context.Context, t *turnState) bool {
	if !a.opts.FilesLanguage || a.opts.NoGrammar || t.in.folder == "" {
		return false
	}
	if t.in.script || a.accentedFiles(ctx) {
		return true
	}
	lang, err := a.choose(ctx, &t.turn, t.on, filesLanguageMessages(t.in.folder), filesLanguages)
	return err == nil && lang != "" && lang != filesLanguages[0]
}

// otherScript reports whether a quarter or more of the paths of a folder
// overview (folderOverview) are written partly in a script other
// than Latin (Hangul, Han, kana, Cyrillic, Arabic…): such files are not
// in English, and no choice of the model's is needed. Asked about a
// Korean piano school's 회의록/ and 수강생.csv, the 0.5B named them
// English, and the Korean requests were searched in English words only.
func otherScript(paths []string) bool {
	n := 0
	for _, p := range paths {
		if strings.ContainsFunc(p, func(r rune) bool { return unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) }) {
			n++
		}
	}
	return 4*n >= len(paths) && n > 0
}

// Limits of the text accentedFiles samples: the first samplePerFile
// bytes of each file, sampleBytes in all.
const (
	samplePerFile = 1 << 10
	sampleBytes   = 16 << 10
)

// accentedFiles reports whether the working directory's files, as
// Options.Sample gives their beginnings, are written with letters
// English does not use (accented).
func (a *Agent) accentedFiles(ctx context.Context) bool {
	if a.opts.Sample == nil {
		return false
	}
	text, err := a.opts.Sample(ctx, sampleBytes)
	return err == nil && accented(text)
}

// accented reports whether one letter in a hundred or more of text, of
// a hundred at least, is not an ASCII letter: text in Turkish, Polish,
// French, Portuguese, Chinese…, not in English, where such a letter is
// a name's ("Lindenstraße"). The 0.5B named a Turkish folder's veri/,
// toplantilar/ and ayarlar.yaml English, and Turkish requests were
// searched in English words only; the files' text, "çay 3 lira",
// "Toplantı notları", tells.
func accented(text string) bool {
	letters, other := 0, 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			letters++
			if r > unicode.MaxASCII {
				other++
			}
		}
	}
	return letters >= 100 && 100*other >= letters
}

// requestWords returns the words of a request a search may look for as
// written: its terms (words.Terms) three letters wide or more (two
// Hangul syllables: words.Width), but for small numbers and words of a
// script written without spaces, whose terms are not words.
func requestWords(request string) []string {
	var out []string
	for _, w := range words.Terms(request) {
		if r, _ := utf8.DecodeRuneInString(w); words.Width(w) >= 3 && !words.Unspaced(r) && !smallNumber(w) {
			out = append(out, w)
		}
	}
	return out
}
