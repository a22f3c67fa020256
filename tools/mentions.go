package tools

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// Mention is a file or directory of the working directory that a request
// names.
type Mention struct {
	Path string // as the request wrote it, e.g. "docs/guide.md"
	Dir  bool
	// Missing marks a name that looks like a file's ("config/prod.yaml",
	// "/etc/hosts") but names nothing in the working directory: a file
	// that does not exist, or a path that leads outside it.
	Missing bool
}

// Outside reports whether the path, as written, leads outside the
// working directory: an absolute path, or one that climbs out with "..".
func (m Mention) Outside() bool { return absolute(m.Path) || climbsOut(m.Path) }

// Mentioned returns the files and directories of root that request names,
// in the order it names them, each once: the words (see [Fields]) holding
// a dot or a slash ("notes.txt", "docs/guide.md", "./docs"), quotes and
// trailing punctuation removed, routes left out (see pathWords), looked
// up through an os.Root, so that nothing outside root is ever looked at.
// Special files (devices, pipes, sockets) are left out. A bare word
// counts when it is the whole name of an entry of root without a dot
// ("docs", "Makefile"), and so does a part of a hyphenated word
// ("config-Ordner"; compoundEntry). A file name that is not where the
// request puts it stands for the one file of the tree
// (see [Files]) whose path ends with it, if there is exactly one:
// "settings.yaml" for config/settings.yaml; a name that several files
// end with is left out. A word in capitals stands for the one file of
// root it is the name of before the dot ("CHANGELOG" for CHANGELOG.md;
// see capitalName). A word that looks like a file's name or path (see
// [FileNames]) but names nothing in root is returned as Missing. A path
// of root written in full ("/home/ana/shop/notes.txt") is named as the
// tools take it ("notes.txt").
func Mentioned(root, request string) []Mention {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer r.Close()
	var roots []string // the root's absolute paths, for a file named by its own (underRoot)
	if abs, err := filepath.Abs(root); err == nil {
		real, _ := filepath.EvalSymlinks(abs)
		roots = append(roots, abs, real)
	}
	entries := map[string]bool{}   // the root's names without a dot, which a bare word may name
	stems := map[string][]string{} // the root's names with a dot, by the part before it
	if f, err := r.Open("."); err == nil {
		names, _ := f.Readdirnames(1000)
		f.Close()
		for _, n := range names {
			if stem, _, dot := strings.Cut(n, "."); !dot {
				entries[n] = true
			} else if stem != "" {
				stems[stem] = append(stems[stem], n)
			}
		}
	}
	var files []string // the tree's files, listed once a name is not found as written
	within := func(name string) (string, int) {
		if files == nil {
			files, _, _ = Files(context.Background(), root, maxWithin)
			files = append(files, "") // listed, even if empty
		}
		return uniqueSuffix(files, strings.TrimPrefix(name, "./"))
	}
	var out []Mention
	var seen []string
	for _, w := range pathWords(request) {
		if rel, ok := underRoot(w, roots...); ok && rel == "." {
			continue // the working directory itself
		} else if ok {
			w = filepath.ToSlash(rel)
		}
		if strings.Contains(w, "://") || slices.Contains(seen, w) {
			continue
		}
		bare := !strings.ContainsAny(w, "./")
		if n := stems[w]; bare && !entries[w] && len(n) == 1 && capitalName(w) {
			if w, bare = n[0], false; slices.Contains(seen, w) { // "CHANGELOG" for CHANGELOG.md
				continue
			}
		}
		if bare && !entries[w] {
			if w = compoundEntry(w, entries); slices.Contains(seen, w) {
				continue
			}
		}
		if bare && (len(w) < 3 || !entries[w]) {
			continue
		}
		seen = append(seen, w)
		fi, err := r.Stat(w)
		if err != nil && fileName(w) {
			switch p, n := within(w); {
			case n == 0:
				out = append(out, Mention{Path: w, Missing: true})
			case n == 1 && !slices.Contains(seen, p):
				seen = append(seen, p)
				out = append(out, Mention{Path: p})
			}
			continue
		}
		if err != nil {
			continue
		}
		switch m := fi.Mode(); {
		case m.IsDir():
			out = append(out, Mention{Path: w, Dir: true})
		case m.Type()&fs.ModeType == 0:
			out = append(out, Mention{Path: w})
		}
	}
	return out
}

// capitalName reports whether w, a word of a request, is written as the
// capital names of a project's own files are (README, CHANGELOG,
// LICENSE, TODO): three or more letters, digits or underscores, none of
// them a lower-case letter, at least one an upper-case one. Such a word
// stands for the one file of the root it is the name of before the dot:
// asked in Chinese whether "CHANGELOG" and the Makefile agree on the
// version, the 0.5B was shown the Makefile alone, and said what the
// changelog held without reading it. A word in lower case ("notes" of
// notes.txt) is prose as often as a name, and is not looked up so.
func capitalName(w string) bool {
	if len(w) < 3 {
		return false
	}
	upper := false
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsLower(r):
			return false
		case r != '_' && !unicode.IsDigit(r):
			return false
		}
	}
	return upper
}

// compoundEntry returns the part of a hyphenated word that is the whole
// name of an entry of the root (entries): "config" of "config-Ordner",
// "docs" of "docs-Verzeichnis"; "" for none.
func compoundEntry(w string, entries map[string]bool) string {
	for _, part := range strings.Split(w, "-") {
		if len(part) >= 3 && entries[part] {
			return part
		}
	}
	return ""
}

// maxWithin bounds the files Mentioned looks through for a name not
// found where the request puts it.
const maxWithin = 5000

// uniqueSuffix returns the paths of paths that are name or end with "/"
// and name: how many there are, and the first.
func uniqueSuffix(paths []string, name string) (first string, n int) {
	for _, p := range paths {
		if p != "" && (p == name || strings.HasSuffix(p, "/"+name)) {
			if n == 0 {
				first = p
			}
			n++
		}
	}
	return first, n
}

// Files returns the paths of root's files, relative to root and slash
// separated, in lexical order: the files grep_search searches (no
// version-control folders, hidden names or files .gitignore excludes),
// at most max of them; more reports whether there are others.
func Files(ctx context.Context, root string, max int) (paths []string, more bool, err error) {
	err = eachFile(ctx, root, func(_ *Sandbox, rel string) bool {
		if len(paths) == max {
			more = true
			return false
		}
		paths = append(paths, rel)
		return true
	})
	if err != nil {
		return nil, false, err
	}
	return paths, more, nil
}

// eachFile calls fn with each of root's files that [Files] lists, in
// lexical order, and the sandbox over root, until fn returns false.
func eachFile(ctx context.Context, root string, fn func(sb *Sandbox, rel string) bool) error {
	sb, err := NewSandbox(root)
	if err != nil {
		return err
	}
	defer sb.dir.Close()
	f := &fileTools{sb: sb}
	errStop := errors.New("stop")
	_, err = f.walkFiles(ctx, false, false, func(rel string) (string, error) {
		if !fn(sb, rel) {
			return "", errStop
		}
		return "", nil
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// Sample returns the beginnings of root's files, those [Files] lists, in
// lexical order: up to perFile bytes of each text file (binary files
// are left out), cut at a line's end, until max bytes in all. It tells
// what the files are written in, for a folder whose names do not.
func Sample(ctx context.Context, root string, perFile, max int) (string, error) {
	var b strings.Builder
	buf := make([]byte, perFile)
	err := eachFile(ctx, root, func(sb *Sandbox, rel string) bool {
		if b.Len() >= max {
			return false
		}
		fh, fi, _, err := sb.open(rel)
		if err != nil {
			return true // unreadable: not sampled
		}
		defer fh.Close()
		if !fi.Mode().IsRegular() {
			return true
		}
		want := min(perFile, max-b.Len())
		n, _ := io.ReadFull(fh, buf[:want])
		head := buf[:n]
		if isBinary(head[:min(n, sniffLen)]) {
			return true
		}
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 && n == want {
			head = head[:i+1]
		}
		b.Write(bytes.ToValidUTF8(head, nil))
		if len(head) > 0 && head[len(head)-1] != '\n' {
			b.WriteByte('\n')
		}
		return true
	})
	if err != nil {
		return "", err
	}
	return b.String(), nil
}
