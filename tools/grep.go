package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

const grepDescription = "Search file contents for lines containing pattern (case-insensitive; * matches any run of characters), in files matching file_filter. Respects .gitignore unless ignore_gitignore is set."

type grepArgs struct {
	Pattern         string `json:"pattern" jsonschema:"text to find, case-insensitive; * matches any characters within a line"`
	FileFilter      string `json:"file_filter,omitempty" jsonschema:"glob of files to search, e.g. **/*.go; a glob without / matches file names in any directory" default:"**"`
	MaxResults      int    `json:"max_results,omitempty" jsonschema:"most matching lines to return" minimum:"1" maximum:"1000" default:"200"`
	IncludeHidden   bool   `json:"include_hidden,omitempty" jsonschema:"also search files and directories whose names start with a dot" default:"false"`
	IgnoreGitignore bool   `json:"ignore_gitignore,omitempty" jsonschema:"also search files that .gitignore excludes" default:"false"`
}

// vcsDirs are never searched.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true}

// maxGrepLine is the longest matched line shown; longer ones are cut.
const maxGrepLine = 300

// grepPattern compiles a grep_search pattern: a case-insensitive substring
// in which * matches any run of characters.
func grepPattern(p string) (*regexp.Regexp, error) {
	if strings.Trim(p, "*") == "" {
		return nil, Errorf(ErrValidationFailed, "pattern %q matches everything; give some text to search for", p)
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
		return "", Errorf(ErrValidationFailed, "file_filter %q is not a valid glob", a.FileFilter)
	}
	if strings.HasPrefix(filter, "/") || filter == ".." || strings.HasPrefix(filter, "../") {
		return "", fmt.Errorf("%w: file_filter %q reaches outside the working directory", ErrOutsideRoot, a.FileFilter)
	}
	baseOnly := !strings.Contains(filter, "/")

	root := f.sb.Root()
	var patterns []gitignore.Pattern
	if !a.IgnoreGitignore {
		patterns = append(patterns, readIgnore(filepath.Join(root, ".git", "info", "exclude"), nil)...)
	}
	type match struct {
		file string
		line int
		text string
	}
	var matches []match
	files, limited := 0, false
	errStop := errors.New("stop")
	walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable entry: skip it
		}
		rel := f.sb.Rel(p)
		name := d.Name()
		if d.IsDir() {
			if p == root {
				if !a.IgnoreGitignore {
					patterns = append(patterns, readIgnore(filepath.Join(p, ".gitignore"), nil)...)
				}
				return nil
			}
			if vcsDirs[name] || !a.IncludeHidden && strings.HasPrefix(name, ".") {
				return fs.SkipDir
			}
			parts := strings.Split(rel, "/")
			if !a.IgnoreGitignore {
				if gitignore.NewMatcher(patterns).Match(parts, true) {
					return fs.SkipDir
				}
				patterns = append(patterns, readIgnore(filepath.Join(p, ".gitignore"), parts)...)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // links, devices, sockets
		}
		if !a.IncludeHidden && strings.HasPrefix(name, ".") {
			return nil
		}
		if !a.IgnoreGitignore && gitignore.NewMatcher(patterns).Match(strings.Split(rel, "/"), false) {
			return nil
		}
		target := rel
		if baseOnly {
			target = path.Base(rel)
		}
		if ok, _ := doublestar.Match(filter, target); !ok {
			return nil
		}
		files++
		stop, err := grepFile(p, re, func(line int, text string) bool {
			if len(matches) >= a.MaxResults {
				limited = true
				return false
			}
			matches = append(matches, match{rel, line, text})
			return true
		})
		if err != nil {
			return nil // unreadable file: skip it
		}
		if stop {
			return errStop
		}
		return nil
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
	if len(matches) == 0 {
		fmt.Fprintf(&b, "No matches for %q in %s (%s searched)%s\n", a.Pattern, filter, plural(files, "file"), flags)
		return b.String(), nil
	}
	word := "matches"
	if len(matches) == 1 {
		word = "match"
	}
	fmt.Fprintf(&b, "%d %s for %q in %s%s:\n", len(matches), word, a.Pattern, filter, flags)
	for _, m := range matches {
		fmt.Fprintf(&b, "%s:%d: %s\n", m.file, m.line, m.text)
	}
	if limited {
		fmt.Fprintf(&b, "[stopped at max_results=%d; narrow the pattern or file_filter to see the rest]\n", a.MaxResults)
	}
	return b.String(), nil
}

// grepFile calls emit for each line of the file at p that re matches, until
// emit returns false (then stop is true). Binary files are skipped.
func grepFile(p string, re *regexp.Regexp, emit func(line int, text string) bool) (stop bool, err error) {
	fh, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 64<<10)
	if head, _ := br.Peek(sniffLen); isBinary(head) {
		return false, nil
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
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

// readIgnore parses one .gitignore-style file; domain is the directory it
// applies to, relative to the root. A missing or unreadable file has no
// patterns.
func readIgnore(file string, domain []string) []gitignore.Pattern {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
