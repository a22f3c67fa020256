package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

const grepDescription = "Find the lines that contain pattern (case-insensitive; * matches any characters) in the files matching file_filter, skipping files .gitignore excludes."

// maxGrepResults is the most matching lines grep_search returns.
const maxGrepResults = 200

type grepArgs struct {
	Pattern         string `json:"pattern" jsonschema:"text to find"`
	FileFilter      string `json:"file_filter,omitempty" jsonschema:"glob of files; without / it matches names in any directory" default:"**"`
	IncludeHidden   bool   `json:"include_hidden,omitempty" jsonschema:"also search names starting with a dot" default:"false"`
	IgnoreGitignore bool   `json:"ignore_gitignore,omitempty" jsonschema:"also search files .gitignore excludes" default:"false"`
}

// vcsDirs are never searched.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true}

// maxGrepLine is the longest matched line shown; longer ones are cut.
const maxGrepLine = 300

// maxGrepFile is the largest file grep_search reads; larger ones are
// skipped with a note.
const maxGrepFile = 64 << 20

// maxIgnoreFile is the largest .gitignore read; a larger one is ignored
// with a note.
const maxIgnoreFile = 1 << 20

// grepPattern compiles a grep_search pattern: a case-insensitive substring
// in which * matches any run of characters.
func grepPattern(p string) (*regexp.Regexp, error) {
	if strings.Trim(p, "*") == "" {
		return nil, Errorf(TypeValidationFailed, "pattern %q matches everything; give some text to search for", p)
	}
	parts := strings.Split(p, "*")
	for i, s := range parts {
		parts[i] = regexp.QuoteMeta(s)
	}
	return regexp.Compile("(?i)" + strings.Join(parts, ".*"))
}

func (f *fileTools) grep(ctx context.Context, a grepArgs) (string, error) {
	re, err := grepPattern(a.Pattern)
	if err != nil {
		return "", err
	}
	filter := a.FileFilter
	if filter == "" {
		filter = "**"
	}
	filter = strings.TrimPrefix(filepath.ToSlash(filter), "./")
	if !doublestar.ValidatePattern(filter) {
		return "", Errorf(TypeValidationFailed, "file_filter %q is not a valid glob", a.FileFilter)
	}
	if strings.HasPrefix(filter, "/") || filter == ".." || strings.HasPrefix(filter, "../") {
		return "", fmt.Errorf("%w: file_filter %q reaches outside the working directory", ErrOutsideRoot, a.FileFilter)
	}
	baseOnly := !strings.Contains(filter, "/")

	var matches []grepMatch
	files, limited := 0, false
	errStop := errors.New("stop")
	notes, walkErr := f.walkFiles(ctx, a.IncludeHidden, a.IgnoreGitignore, func(rel string) (string, error) {
		target := rel
		if baseOnly {
			target = path.Base(rel)
		}
		if ok, _ := doublestar.Match(filter, target); !ok {
			return "", nil
		}
		files++
		stop, err := f.grepFile(ctx, rel, re, func(line int, text string) bool {
			if len(matches) >= maxGrepResults {
				limited = true
				return false
			}
			matches = append(matches, grepMatch{rel, line, text})
			return true
		})
		if stop {
			return "", errStop
		}
		switch {
		case errors.Is(err, errTooLarge):
			return fmt.Sprintf("skipped %s: %v", rel, err), nil
		case errors.Is(err, ErrHardLinked):
			return fmt.Sprintf("skipped %s: it has more than one hard link", rel), nil
		}
		return "", nil // an unreadable file is skipped
	})
	if walkErr != nil && !errors.Is(walkErr, errStop) {
		return "", walkErr
	}

	var b strings.Builder
	flags := ""
	if a.IncludeHidden {
		flags += " [+hidden]"
	}
	if a.IgnoreGitignore {
		flags += " [+gitignored]"
	}
	finish := func() string {
		for _, n := range notes {
			fmt.Fprintf(&b, "[note: %s]\n", n)
		}
		return b.String()
	}
	if len(matches) == 0 {
		ranked, rankNotes, err := f.rankLines(ctx, a, filter, baseOnly)
		if err != nil {
			return "", err
		}
		if len(ranked) == 0 {
			fmt.Fprintf(&b, "No matches for %q in %s (%s searched)%s\n", a.Pattern, filter, plural(files, "file"), flags)
			return finish(), nil
		}
		notes = append(notes, rankNotes...)
		fmt.Fprintf(&b, "No line contains %q in %s%s; the lines with the most of its words, rarer words counting more, best first:\n", a.Pattern, filter, flags)
		f.writeMatches(ctx, &b, ranked)
		return finish(), nil
	}
	word := "matches"
	if len(matches) == 1 {
		word = "match"
	}
	fmt.Fprintf(&b, "%d %s for %q in %s%s:\n", len(matches), word, a.Pattern, filter, flags)
	f.writeMatches(ctx, &b, matches)
	if limited {
		fmt.Fprintf(&b, "[stopped at %d matching lines; narrow the pattern or file_filter to see the rest]\n", maxGrepResults)
	}
	return finish(), nil
}

// writeMatches writes grep_search's lines, PATH:LINE: TEXT, a table's
// rows (CSV, TSV) followed by their cells named by the header's columns
// (rowLabels).
func (f *fileTools) writeMatches(ctx context.Context, b *strings.Builder, ms []grepMatch) {
	headers := map[string][]string{}
	for _, m := range ms {
		fmt.Fprintf(b, "%s:%d: %s", m.file, m.line, m.text)
		if tableComma(m.file) != 0 {
			h, ok := headers[m.file]
			if !ok {
				f.grepFile(ctx, m.file, matchAll, func(_ int, text string) bool {
					h = tableCells(m.file, text)
					return false
				})
				headers[m.file] = h
			}
			if l := rowLabels(m.file, h, m.line, m.text); l != "" {
				b.WriteString(" " + l)
			}
		}
		b.WriteString("\n")
	}
}

// own reports whether the walk's entry d is the program's own output (see
// ownOutput).
func (f *fileTools) own(d fs.DirEntry) bool {
	if len(f.sb.own) == 0 {
		return false
	}
	info, err := d.Info()
	return err == nil && f.sb.ownName(info) != ""
}

// grepMatch is a line grep_search found.
type grepMatch struct {
	file string
	line int
	text string
}

// walkFiles calls fn with the path (relative to the root, slash
// separated) of each regular file of the tree, in lexical order: not in
// version-control folders, not named with a leading dot unless hidden,
// and not excluded by .gitignore files (and .git/info/exclude) unless
// all. A note fn returns, and one for each ignore file that could not
// be read, is returned; an error from fn other than nil ends the walk.
func (f *fileTools) walkFiles(ctx context.Context, hidden, all bool, fn func(rel string) (note string, err error)) ([]string, error) {
	return f.walkFilesUnder(ctx, ".", hidden, all, fn)
}

// walkFilesUnder is walkFiles for the files below the folder under
// (relative to the root, slash separated): the folders on the way to it
// are entered only for their ignore files.
func (f *fileTools) walkFilesUnder(ctx context.Context, under string, hidden, all bool, fn func(rel string) (note string, err error)) ([]string, error) {
	under = path.Clean(under)
	var notes []string
	ignore := func(rel string, domain []string) []gitignore.Pattern {
		ps, err := f.readIgnore(rel, domain)
		if err != nil {
			notes = append(notes, fmt.Sprintf("ignored %s: %v", filepath.ToSlash(rel), err))
		}
		return ps
	}
	var patterns []gitignore.Pattern
	if !all {
		patterns = append(patterns, ignore(filepath.Join(".git", "info", "exclude"), nil)...)
	}
	inside := func(rel string) bool { return under == "." || strings.HasPrefix(rel, under+"/") }
	err := fs.WalkDir(sandboxFS{f.sb}, ".", func(rel string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if rel == "." {
				return f.sb.pathError(rel, err)
			}
			return nil // unreadable entry: skip it
		}
		name := d.Name()
		if d.IsDir() {
			if rel == "." {
				if !all {
					patterns = append(patterns, ignore(".gitignore", nil)...)
				}
				return nil
			}
			below := inside(rel)
			if !below && rel != under && !strings.HasPrefix(under, rel+"/") {
				return fs.SkipDir // neither below under nor on the way to it
			}
			// The folder asked for, and those on the way to it, are
			// entered whatever their names: only their ignore files
			// matter.
			if below && (vcsDirs[name] || !hidden && strings.HasPrefix(name, ".")) {
				return fs.SkipDir
			}
			parts := strings.Split(rel, "/")
			if !all {
				if below && gitignore.NewMatcher(patterns).Match(parts, true) {
					return fs.SkipDir
				}
				patterns = append(patterns, ignore(path.Join(rel, ".gitignore"), parts)...)
			}
			return nil
		}
		if !d.Type().IsRegular() || !inside(rel) {
			return nil // links, devices, sockets; files on the way to under
		}
		if !hidden && strings.HasPrefix(name, ".") {
			return nil
		}
		if f.own(d) {
			return nil
		}
		if !all && gitignore.NewMatcher(patterns).Match(strings.Split(rel, "/"), false) {
			return nil
		}
		note, err := fn(rel)
		if note != "" {
			notes = append(notes, note)
		}
		return err
	})
	return notes, err
}

// errTooLarge is wrapped by the error for a file over a read limit.
var errTooLarge = errors.New("too large")

// grepFile calls emit for each line of the regular file rel (relative to
// the root) that re matches, until emit returns false (then stop is true).
// Binary files are skipped; files over [maxGrepFile] are refused with
// errTooLarge.
func (f *fileTools) grepFile(ctx context.Context, rel string, re *regexp.Regexp, emit func(line int, text string) bool) (stop bool, err error) {
	fh, fi, _, err := f.sb.open(rel)
	if err != nil {
		return false, err
	}
	defer fh.Close()
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("%s: not a regular file", rel)
	}
	if fi.Size() > maxGrepFile {
		return false, fmt.Errorf("%w: %s, more than the %s grep_search reads", errTooLarge, humanSize(fi.Size()), humanSize(maxGrepFile))
	}
	br := bufio.NewReaderSize(io.LimitReader(fh, maxGrepFile), 64<<10)
	if head, _ := br.Peek(sniffLen); isBinary(head) {
		return false, nil
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return false, ctx.Err()
		}
		line := sc.Bytes()
		if !re.Match(line) {
			continue
		}
		text := strings.TrimRight(string(line), "\r")
		if len(text) > maxGrepLine {
			text = truncateUTF8(text, maxGrepLine) + " […]"
		}
		if !emit(n, text) {
			return true, nil
		}
	}
	return false, sc.Err()
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// readIgnore parses one .gitignore-style file, rel (relative to the
// root); domain is the directory it applies to. A missing file has no
// patterns; one that cannot be used (not a regular file, too large,
// unreadable, leading outside the root) has none either, and the error
// says why.
func (f *fileTools) readIgnore(rel string, domain []string) ([]gitignore.Pattern, error) {
	fh, fi, _, err := f.sb.open(rel)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("it is %s, not a regular file", fileKind(fi.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxIgnoreFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxIgnoreFile {
		return nil, fmt.Errorf("%w: more than %s", errTooLarge, humanSize(maxIgnoreFile))
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps, nil
}

// sandboxFS is the sandbox's tree as an fs.FS for fs.WalkDir: names are
// relative to the root and opened through its os.Root, without blocking on
// a FIFO swapped in for a directory.
type sandboxFS struct{ sb *Sandbox }

func (s sandboxFS) Open(name string) (fs.File, error) {
	f, err := s.sb.dir.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}
