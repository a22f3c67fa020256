package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// fileTools implements the file tools over one sandbox.
type fileTools struct {
	sb      *Sandbox
	curator Curator

	mu   sync.Mutex
	seen map[string]stamp // files read or written through these tools, by resolved path
}

// stamp is what a file looked like when the tools last read or wrote it.
// The file's identity (see fileID) tells apart a file replaced by a
// rename, as the tools and most editors write, with one of the same size
// and a modification time within the same clock tick.
type stamp struct {
	size int64
	mod  time.Time
	id   uint64
}

func stampOf(fi fs.FileInfo) stamp { return stamp{fi.Size(), fi.ModTime(), fileID(fi)} }

// saw records that the model has seen rel as fi describes it.
func (f *fileTools) saw(rel string, fi fs.FileInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen = make(map[string]stamp)
	}
	f.seen[rel] = stampOf(fi)
}

// forget drops the record of the files the model has seen.
func (f *fileTools) forget() {
	f.mu.Lock()
	f.seen = nil
	f.mu.Unlock()
}

// sawNow records rel as it is now on disk, after the tools wrote it.
func (f *fileTools) sawNow(rel string) {
	if fi, err := f.sb.dir.Lstat(rel); err == nil {
		f.saw(rel, fi)
	}
}

// edited keeps rel seen after a line edit if it was seen before: the
// model knows the lines it changed, but not a file it never read.
func (f *fileTools) edited(rel string) {
	f.mu.Lock()
	_, ok := f.seen[rel]
	f.mu.Unlock()
	if ok {
		f.sawNow(rel)
	}
}

// checkSeen refuses to overwrite the existing file rel (fi) unless the
// model has read it, and as it is now: content it never saw, or that
// changed under it, would be lost.
func (f *fileTools) checkSeen(name, rel string, fi fs.FileInfo) error {
	f.mu.Lock()
	st, ok := f.seen[rel]
	f.mu.Unlock()
	switch {
	case !ok:
		return Errorf(TypeValidationFailed, "%s already exists and has not been read; read it with read_file first, then change its lines with replace_lines or insert_lines, or write its whole new content", name)
	case st.size != fi.Size() || !st.mod.Equal(fi.ModTime()) || st.id != fileID(fi):
		return Errorf(TypeValidationFailed, "%s has changed since it was last read; read it again with read_file first", name)
	}
	return nil
}

// checkWrite refuses a write_file over rel (name as the model gave it)
// that checkSeen refuses, and reports whether rel does not exist yet. A
// hard-linked file is replaced by a file of its own (see
// Sandbox.writeFile), so its content is not lost.
func (f *fileTools) checkWrite(name, rel string) (created bool, err error) {
	fi, err := f.sb.dir.Lstat(rel)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist), nil
	}
	if which := f.sb.ownName(fi); which != "" {
		return false, ownError(name, which)
	}
	if fi.Mode().IsRegular() && (linkCount(fi) == 1 || f.sb.hardlinks) {
		return false, f.checkSeen(name, rel, fi)
	}
	return false, nil
}

// lockFor takes the edit lock (see Sandbox.lockDir) for a line edit of
// the file name names, held from reading it to recording the new version
// as seen, so that the edit applies to the file as it is, and another
// offgrid's edit in between is not lost. A name that does not resolve is
// left for the edit to report, unlocked.
func (f *fileTools) lockFor(ctx context.Context, name string) (unlock func(), err error) {
	rel, err := f.sb.resolve(name)
	if err != nil {
		return func() {}, nil
	}
	unlock, err = f.sb.lockDir(ctx, filepath.Dir(rel))
	if err != nil {
		return nil, lockError(name, err)
	}
	return unlock, nil
}

// display is how a resolved path is echoed back: relative to the root,
// with slashes.
func display(rel string) string { return filepath.ToSlash(rel) }

// checkRegular refuses anything but a regular file, judged by fi, the
// FileInfo of the opened descriptor; isDir is appended to the message for
// a directory.
func checkRegular(name string, fi fs.FileInfo, isDir string) error {
	switch {
	case fi.Mode().IsRegular():
		return nil
	case fi.IsDir():
		return Errorf(TypeValidationFailed, "%s is a directory%s", name, isDir)
	}
	return Errorf(TypeValidationFailed, "%s is %s, not a regular file; only regular files can be read or edited", name, fileKind(fi.Mode()))
}

// ---- ls

const lsDescription = "List a directory: type, size, modification time and name of each entry. Given a file, shows that file."

// maxLsEntries is the most entries ls lists; a note counts the rest.
const maxLsEntries = 500

type lsArgs struct {
	Path       string `json:"path,omitempty" jsonschema:"directory, relative to the working directory" default:"."`
	ShowHidden bool   `json:"show_hidden,omitempty" jsonschema:"include names starting with a dot" default:"false"`
	SortBy     string `json:"sort_by,omitempty" jsonschema:"name (A to Z), size (largest first) or modified (newest first)" enum:"name,size,modified" default:"name"`
}

type lsEntry struct {
	name string
	kind string // FILE, DIR, LINK
	size int64
	mod  time.Time
}

func (f *fileTools) ls(ctx context.Context, a lsArgs) (string, error) {
	d, fi, dir, err := f.sb.open(a.Path)
	if err != nil {
		return "", err
	}
	defer d.Close()
	switch {
	case fi.Mode().IsRegular():
		// Like ls(1): a file lists itself, which answers "does it
		// exist?" and "how big is it?".
		var b strings.Builder
		fmt.Fprintf(&b, "File: %s\n", display(dir))
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TYPE\tSIZE\tMODIFIED\tNAME")
		fmt.Fprintf(tw, "FILE\t%s\t%s\t%s\n", humanSize(fi.Size()), fi.ModTime().Format("2006-01-02 15:04"), filepath.Base(dir))
		tw.Flush()
		b.WriteString("(a file, not a directory: read_file reads it)\n")
		return b.String(), nil
	case !fi.IsDir():
		return "", Errorf(TypeValidationFailed, "%s is %s, not a directory", a.Path, fileKind(fi.Mode()))
	}
	des, err := d.ReadDir(-1)
	if err != nil {
		return "", f.sb.pathError(a.Path, err)
	}
	entries := make([]lsEntry, 0, len(des))
	for _, de := range des {
		if !a.ShowHidden && strings.HasPrefix(de.Name(), ".") {
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		if f.sb.ownName(info) != "" {
			continue
		}
		e := lsEntry{name: de.Name(), kind: "FILE", size: info.Size(), mod: info.ModTime()}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			e.kind = "LINK"
		case info.IsDir():
			e.kind, e.name, e.size = "DIR", e.name+"/", 0
		}
		entries = append(entries, e)
	}
	// As ls(1) -S and -t: largest and newest first.
	less := map[string]func(a, b lsEntry) bool{
		"name":     func(a, b lsEntry) bool { return a.name < b.name },
		"size":     func(a, b lsEntry) bool { return a.size > b.size || a.size == b.size && a.name < b.name },
		"modified": func(a, b lsEntry) bool { return a.mod.After(b.mod) || a.mod.Equal(b.mod) && a.name < b.name },
	}[a.SortBy]
	if less == nil {
		return "", Errorf(TypeValidationFailed, "sort_by %q is not one of name, size, modified", a.SortBy)
	}
	sort.SliceStable(entries, func(i, j int) bool { return less(entries[i], entries[j]) })

	var files, dirs, links int
	var total int64
	for _, e := range entries {
		switch e.kind {
		case "DIR":
			dirs++
		case "LINK":
			links++
		default:
			files++
			total += e.size
		}
	}
	shown := entries
	if len(shown) > maxLsEntries {
		shown = shown[:maxLsEntries]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Directory: %s\n", display(dir))
	if len(entries) == 0 {
		b.WriteString("(empty directory)\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TYPE\tSIZE\tMODIFIED\tNAME")
		for _, e := range shown {
			size := humanSize(e.size)
			if e.kind == "DIR" {
				size = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.kind, size, e.mod.Format("2006-01-02 15:04"), e.name)
		}
		tw.Flush()
	}
	fmt.Fprintf(&b, "%s, %s", plural(files, "file"), plural(dirs, "dir"))
	if links > 0 {
		fmt.Fprintf(&b, ", %s", plural(links, "link"))
	}
	fmt.Fprintf(&b, ", total size %s", humanSize(total))
	if len(shown) < len(entries) {
		fmt.Fprintf(&b, " (showing %d of %d entries)", len(shown), len(entries))
	}
	b.WriteByte('\n')
	if dirs > 0 {
		line, err := f.below(ctx, dir, a.ShowHidden)
		if err != nil {
			return "", err
		}
		b.WriteString(line)
	}
	return b.String(), nil
}

// Bounds of the files ls names below a directory's folders: it names
// them all up to maxBelowNamed of them in maxBelowBytes, and counts them
// up to maxBelowCounted.
const (
	maxBelowNamed   = 60
	maxBelowBytes   = 2 << 10
	maxBelowCounted = 1000
)

// below returns the line ls ends a listing of the directory dir with
// when dir has folders: the files below them, by their paths from dir,
// or how many there are when they are more than maxBelowNamed or their
// names longer than maxBelowBytes; "" when there is none to name. Files
// are those grep_search reads: not hidden (unless hidden), not ignored
// by .gitignore. Asked for the test files of a Go module, the 0.5B
// listed its top folder, saw cmd/, internal/ and testdata/, and answered
// that there were 6. The error is the walk's (a cancelled listing): a
// listing without the line would say less than ls was asked for.
func (f *fileTools) below(ctx context.Context, dir string, hidden bool) (string, error) {
	prefix := ""
	if d := filepath.ToSlash(dir); d != "." {
		prefix = d + "/"
	}
	var names []string
	n, size := 0, 0
	errFull := errors.New("full")
	_, err := f.walkFilesUnder(ctx, filepath.ToSlash(dir), hidden, false, func(rel string) (string, error) {
		name := strings.TrimPrefix(rel, prefix)
		if !strings.Contains(name, "/") {
			return "", nil // in the table already
		}
		if n++; n <= maxBelowNamed {
			names = append(names, name)
			size += len(name) + 2
		}
		if n > maxBelowCounted {
			return "", errFull
		}
		return "", nil
	})
	switch {
	case err != nil && !errors.Is(err, errFull):
		return "", err
	case n == 0:
		return "", nil // none, or none that is not hidden or ignored
	case n > maxBelowCounted:
		return fmt.Sprintf("More than %d files below its folders.\n", maxBelowCounted), nil
	case n > maxBelowNamed || size > maxBelowBytes:
		return fmt.Sprintf("%s below its folders (ls a folder to see them).\n", plural(n, "file")), nil
	}
	return fmt.Sprintf("Below its folders, %s: %s\n", plural(n, "file"), strings.Join(names, ", ")), nil
}

// Listing is what a result of ls lists: the directory, as ls shows it,
// and the names of its entries, a directory's with a trailing "/".
type Listing struct {
	Dir   string
	Names []string
}

// ParseListing reads a result of ls that lists a directory; false for
// any other text (a file listing itself, an error).
func ParseListing(data string) (Listing, bool) {
	head, rest, ok := strings.Cut(data, "\n")
	dir, isDir := strings.CutPrefix(head, "Directory: ")
	if !ok || !isDir {
		return Listing{}, false
	}
	l := Listing{Dir: dir}
	lines := strings.Split(rest, "\n")
	// The names start where the header's NAME does: the tabwriter
	// lines the columns up.
	at := strings.Index(lines[0], "NAME")
	if at < 0 || !strings.HasPrefix(lines[0], "TYPE") {
		return l, strings.HasPrefix(lines[0], "(empty directory)")
	}
	for _, row := range lines[1:] {
		kind, _, _ := strings.Cut(row, " ")
		if kind != "FILE" && kind != "DIR" && kind != "LINK" || len(row) <= at {
			break // the totals' line
		}
		l.Names = append(l.Names, row[at:])
	}
	return l, true
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// humanSize formats n bytes with B, KB, MB or GB (powers of 1024).
func humanSize(n int64) string {
	const unit = 1024
	switch {
	case n < unit:
		return fmt.Sprintf("%d B", n)
	case n < unit*unit:
		return fmt.Sprintf("%.1f KB", float64(n)/unit)
	case n < unit*unit*unit:
		return fmt.Sprintf("%.1f MB", float64(n)/(unit*unit))
	default:
		return fmt.Sprintf("%.1f GB", float64(n)/(unit*unit*unit))
	}
}

// ---- read_file

const readDescription = "Read a text file. Returns numbered lines as 'N: text'. Without offset it returns the whole file; a long file comes in parts, each ending with the offset to continue from."

// maxWholeFile is the largest file read_file reads without a window and
// the largest file the line tools edit.
const maxWholeFile = 10 << 20

// maxReadText is the most text one read_file call returns: below the
// registry's DefaultMaxOutput, so that a long read stops on a line
// boundary with a note saying where to continue, and how many lines the
// file has, instead of being cut mid-line.
const maxReadText = 60 << 10

// maxLine is the longest line read_file returns; the rest of a longer line
// is skipped, so that a window into a huge file without line breaks stays
// bounded.
const maxLine = 1 << 20

type readArgs struct {
	Path   string `json:"path" jsonschema:"file, relative to the working directory"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line to return, 1-based (default: the first)" minimum:"1"`
}

// sniffLen is how much of a file is checked for NUL bytes, as git does.
const sniffLen = 8000

func isBinary(head []byte) bool { return bytes.IndexByte(head, 0) >= 0 }

func (f *fileTools) readFile(ctx context.Context, a readArgs) (string, error) {
	fh, fi, rel, err := f.sb.open(a.Path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	if err := checkRegular(a.Path, fi, "; use ls to list it"); err != nil {
		return "", err
	}
	windowed := a.Offset > 0
	if fi.Size() > maxWholeFile && !windowed {
		return "", Errorf(TypeValidationFailed, "%s is %s, more than the %s read_file returns at once; give an offset to read from",
			a.Path, humanSize(fi.Size()), humanSize(maxWholeFile))
	}
	br := bufio.NewReaderSize(fh, 64<<10)
	head, _ := br.Peek(sniffLen)
	if isBinary(head) {
		return "", Errorf(TypeValidationFailed, "%s is a binary file (%s); read_file reads only text", a.Path, humanSize(fi.Size()))
	}
	f.saw(rel, fi)
	if fi.Size() == 0 {
		return "(empty file)\n", nil
	}
	if request := requestOf(ctx); f.curator != nil && request != "" && !windowed && fi.Size() > curateBytes {
		out, rest, ok, err := f.curated(ctx, a.Path, br, request)
		if ok || err != nil {
			return out, err
		}
		br = rest
	}
	start := max(a.Offset, 1)
	var b, raw strings.Builder // raw: a table's text, for tableNote
	table := !windowed && tableComma(a.Path) != 0
	n, last := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		line, cut, err := readLine(br, maxLine)
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", f.sb.pathError(a.Path, err)
		}
		n++
		if n < start {
			continue
		}
		if b.Len() >= maxReadText {
			total := ""
			if fi.Size() <= maxWholeFile {
				rest, err := countLines(ctx, br)
				if err != nil {
					return "", f.sb.pathError(a.Path, err)
				}
				total = fmt.Sprintf(" of %d", n+rest)
			}
			fmt.Fprintf(&b, "[stopped at line %d%s to keep the result short; continue with offset=%d]\n", n-1, total, n)
			return b.String(), nil
		}
		fmt.Fprintf(&b, "%d: %s", n, strings.TrimSuffix(string(line), "\r"))
		if table {
			raw.Write(line)
			raw.WriteByte('\n')
		}
		if cut {
			fmt.Fprintf(&b, " [line cut at %s]", humanSize(maxLine))
		}
		b.WriteByte('\n')
		last = n
	}
	if last == 0 {
		return "", Errorf(TypeValidationFailed, "offset %d is past the end of %s, which has %d lines", a.Offset, a.Path, n)
	}
	if table {
		b.WriteString(tableNote(a.Path, raw.String()))
	}
	return b.String(), nil
}

// countLines counts the lines left in br (a last line without a
// newline counts).
func countLines(ctx context.Context, br *bufio.Reader) (int, error) {
	n, partial := 0, false
	buf := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k, err := br.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if k > 0 {
			partial = buf[k-1] != '\n'
		}
		if err == io.EOF {
			if partial {
				n++
			}
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// readLine returns the next line without its "\n", at most max bytes of
// it (cut reports that the rest was skipped), or io.EOF after the last.
func readLine(br *bufio.Reader, max int) (line []byte, cut bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		end := err == nil // chunk ends in the line break
		if end {
			chunk = chunk[:len(chunk)-1]
		}
		if room := max - len(line); len(chunk) > room {
			chunk, cut = chunk[:room], true
		}
		line = append(line, chunk...)
		switch {
		case end:
			return line, cut, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && (len(line) > 0 || cut):
			return line, cut, nil
		}
		return nil, false, err
	}
}

// ---- write_file

const writeDescription = "Create a file, or replace all of its content; missing parent directories are created."

type writeArgs struct {
	Path    string `json:"path" jsonschema:"file, relative to the working directory"`
	Content string `json:"content" jsonschema:"the whole new content"`
}

func (f *fileTools) writeFile(ctx context.Context, a writeArgs) (string, error) {
	if !utf8.ValidString(a.Content) {
		return "", Errorf(TypeValidationFailed, "content is not valid UTF-8")
	}
	rel, err := f.sb.resolve(a.Path)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", Errorf(TypeValidationFailed, "path %q names the working directory, not a file", a.Path)
	}
	if _, err := f.checkWrite(a.Path, rel); err != nil {
		return "", err
	}
	if err := f.refuseNumbered("content", a.Path, rel, 0, a.Content); err != nil {
		return "", err
	}
	if err := f.sb.dir.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTDIR) {
			return "", Errorf(TypeValidationFailed, "cannot create %s: a parent on its path is a file, not a directory", a.Path)
		}
		return "", f.sb.pathError(filepath.Dir(rel), err)
	}
	// The check again, under the edit lock held until the new version is
	// in and recorded as seen: another offgrid writing the file after the
	// check would otherwise have its edit overwritten (see lockDir).
	unlock, err := f.sb.lockDir(ctx, filepath.Dir(rel))
	if err != nil {
		return "", lockError(a.Path, err)
	}
	defer unlock()
	created, err := f.checkWrite(a.Path, rel)
	if err != nil {
		return "", err
	}
	if err := f.sb.writeFile(rel, []byte(a.Content), 0o644); err != nil {
		return "", f.sb.pathError(a.Path, err)
	}
	f.sawNow(rel)
	verb := "Overwrote"
	if created {
		verb = "Created"
	}
	return fmt.Sprintf("%s %s (%d bytes)", verb, display(rel), len(a.Content)), nil
}

// refuseNumbered refuses content, the argument field of a write to the
// file rel (name as the model gave it; "" for an edit inside a file),
// when its lines carry the numbers read_file adds ("1: …"): when it is a
// file the model has read as read_file shows it (see numberedCopy), when
// a numbered line is the line of that number of a file the model has
// read, or when the numbers are those the lines will have: starting at
// at, the line a line edit puts them on, or for a whole file (at 0) one
// past the end of rel as it was read. Small models copy the numbers into
// what they write, which would put them into the file; numbered text
// the model has not read, as a new list, is written.
func (f *fileTools) refuseNumbered(field, name, rel string, at int, content string) error {
	start, texts, all := numberedLines(content)
	if len(texts) == 0 {
		return nil
	}
	if all && start == 1 {
		if src, ok := f.numberedCopy(strings.Join(texts, "\n")); ok {
			if src == rel {
				return Errorf(TypeValidationFailed, "%s already holds this text: %s is the file as read_file showed it, with the line numbers read_file adds (1: …), which are not part of the file; nothing was written", name, field)
			}
			return Errorf(TypeValidationFailed, "%s is %s as read_file showed it, with the line numbers read_file adds (1: …), which are not part of the file; write its text without them; nothing was written", field, display(src))
		}
	}
	if !f.numberedLike(rel, at, start, texts) {
		return nil
	}
	return Errorf(TypeValidationFailed, "%s starts its lines with line numbers as read_file shows them (%d: …), which are not part of the file; write the text without them; nothing was written", field, start)
}

// numberedLines returns the leading lines of content that start with
// consecutive numbers and ": " ("4: dan,52"), without them, the number
// of the first, and whether they are all its lines.
func numberedLines(content string) (start int, texts []string, all bool) {
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(content, "\r\n", "\n"), "\n"), "\n")
	for i, l := range lines {
		n, text, ok := NumberedLine(l)
		if !ok || i > 0 && n != start+i {
			break
		}
		if i == 0 {
			start = n
		}
		texts = append(texts, text)
	}
	return start, texts, len(texts) == len(lines)
}

// NumberedLine returns the number and the text of a line as read_file
// shows it: "4: dan,52" is line 4, "dan,52"; "4:" is an empty line 4
// whose trailing space was trimmed. It reports false for any other line,
// a time of day ("09:30 standup") among them.
func NumberedLine(line string) (n int, text string, ok bool) {
	num, rest, ok := strings.Cut(line, ":")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || len(num) > 7 || num[0] == '+' || num[0] == '-' ||
		rest != "" && rest[0] != ' ' {
		return 0, "", false
	}
	return n, strings.TrimPrefix(rest, " "), true
}

// numberedLike reports whether numbered lines texts, the first numbered
// start, are numbered as read_file would: a line is the line of that
// number of a file the model has seen, or the numbering starts where the
// text goes (at; for a whole file, one past the end of rel).
func (f *fileTools) numberedLike(rel string, at, start int, texts []string) bool {
	if at > 0 && start == at {
		return true
	}
	f.mu.Lock()
	seen := slices.Sorted(maps.Keys(f.seen))
	f.mu.Unlock()
	for _, r := range seen {
		lines, ok := f.seenLines(r)
		if !ok {
			continue
		}
		if r == rel && at == 0 && start == len(lines)+1 {
			return true
		}
		for i, t := range texts {
			if k := start + i - 1; k < len(lines) && strings.TrimSpace(t) != "" && t == lines[k] {
				return true
			}
		}
	}
	return false
}

// seenLines returns the lines of rel, a file the model has seen, without
// their endings; not for a file too large to edit.
func (f *fileTools) seenLines(rel string) ([]string, bool) {
	fi, err := f.sb.dir.Lstat(rel)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxWholeFile {
		return nil, false
	}
	data, err := f.sb.dir.ReadFile(rel)
	if err != nil {
		return nil, false
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if s == "" {
		return nil, true
	}
	return strings.Split(s, "\n"), true
}

// numberedCopy reports which file the model has seen is text, the lines
// of content with read_file's numbers taken off. Small models write a
// file back as read_file showed it when asked a question about it, or
// copy it so into another.
func (f *fileTools) numberedCopy(text string) (rel string, ok bool) {
	if len(text) > 2*maxWholeFile {
		return "", false
	}
	f.mu.Lock()
	seen := slices.Sorted(maps.Keys(f.seen))
	f.mu.Unlock()
	for _, rel := range seen {
		// A file shorter than the text cannot hold it (\r\n and a final
		// newline only add bytes): most seen files are not read again.
		fi, err := f.sb.dir.Lstat(rel)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxWholeFile || fi.Size() < int64(len(text)) {
			continue
		}
		data, err := f.sb.dir.ReadFile(rel)
		if err == nil && text == strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
			return rel, true
		}
	}
	return "", false
}

// ---- line editing

const replaceDescription = "Replace lines line_start to line_end (1-based, inclusive) of a file with new_content; empty new_content deletes them."

type replaceArgs struct {
	Path       string `json:"path" jsonschema:"file, relative to the working directory"`
	LineStart  int    `json:"line_start" minimum:"1"`
	LineEnd    int    `json:"line_end" minimum:"1"`
	NewContent string `json:"new_content"`
}

const insertDescription = "Insert new_content before line line_start of a file; line_start one past the last line appends."

type insertArgs struct {
	Path       string `json:"path" jsonschema:"file, relative to the working directory"`
	LineStart  int    `json:"line_start" minimum:"1"`
	NewContent string `json:"new_content"`
}

// textFile is a file split into lines, each keeping its line ending.
type textFile struct {
	sb    *Sandbox
	name  string // as the model gave it
	rel   string // resolved, relative to the root
	lines []string
	eol   string // the ending new lines get
}

func (f *fileTools) loadText(name string) (*textFile, error) {
	fh, fi, rel, err := f.sb.open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if err := checkRegular(name, fi, ""); err != nil {
		return nil, err
	}
	tooLarge := func(size string) error {
		return Errorf(TypeValidationFailed, "%s is %s, too large to edit by lines (limit %s); use write_file", name, size, humanSize(maxWholeFile))
	}
	if fi.Size() > maxWholeFile {
		return nil, tooLarge(humanSize(fi.Size()))
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxWholeFile+1))
	if err != nil {
		return nil, f.sb.pathError(name, err)
	}
	if len(data) > maxWholeFile {
		return nil, tooLarge("more than " + humanSize(maxWholeFile))
	}
	if isBinary(data[:min(len(data), sniffLen)]) {
		return nil, Errorf(TypeValidationFailed, "%s is a binary file; only text files can be edited by lines", name)
	}
	lines, eol := splitLines(data)
	return &textFile{sb: f.sb, name: name, rel: rel, lines: lines, eol: eol}, nil
}

// splitLines splits data into lines, each keeping its line ending, and
// returns the ending new lines get: "\r\n" when the first line has it.
func splitLines(data []byte) (lines []string, eol string) {
	eol = "\n"
	s := string(data)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	if len(lines) > 0 && strings.HasSuffix(lines[0], "\r\n") {
		eol = "\r\n"
	}
	return lines, eol
}

// newLines splits content into lines ending in t's line ending. A final
// line ending in content does not add an empty line.
func (t *textFile) newLines(content string) []string { return newLines(content, t.eol) }

func newLines(content, eol string) []string {
	if content == "" {
		return nil
	}
	content = strings.TrimSuffix(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	parts := strings.Split(content, "\n")
	for i := range parts {
		parts[i] += eol
	}
	return parts
}

// splice replaces lines [i, j) (0-based) with repl and writes the file.
func (t *textFile) splice(i, j int, repl []string) error {
	out := spliceLines(t.lines, i, j, repl, t.eol)
	if err := t.sb.writeFile(t.rel, []byte(strings.Join(out, "")), 0o644); err != nil {
		return t.sb.pathError(t.name, err)
	}
	t.lines = out
	return nil
}

// spliceLines returns lines with [i, j) (0-based) replaced by repl: every
// line but the last ends in a line ending (eol where one is added), and a
// last line without one keeps that when it stays last.
func spliceLines(lines []string, i, j int, repl []string, eol string) []string {
	out := make([]string, 0, len(lines)-(j-i)+len(repl))
	out = append(out, lines[:i]...)
	out = append(out, repl...)
	out = append(out, lines[j:]...)
	// A line that gained a successor needs an ending.
	for k := range len(out) - 1 {
		if !strings.HasSuffix(out[k], "\n") {
			out[k] += eol
		}
	}
	// Keep "no newline at end of file" when the old last line had none and
	// it is still last.
	if j == len(lines) && len(repl) > 0 && len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		out[len(out)-1] = strings.TrimSuffix(strings.TrimSuffix(out[len(out)-1], "\n"), "\r")
	}
	return out
}

// EditLines returns data with lines first to last (1-based, inclusive)
// replaced by content, as replace_lines writes it; last = first-1 inserts
// content before line first, as insert_lines does. It is for previews: the
// tools check their arguments themselves.
func EditLines(data []byte, first, last int, content string) ([]byte, error) {
	lines, eol := splitLines(data)
	switch {
	case last == first-1 && (first < 1 || first > len(lines)+1):
		return nil, fmt.Errorf("cannot insert before line %d of a file of %d lines", first, len(lines))
	case first < 1 || last < first-1 || last > len(lines):
		return nil, fmt.Errorf("lines %d to %d are not in a file of %d lines", first, last, len(lines))
	}
	return []byte(strings.Join(spliceLines(lines, first-1, last, newLines(content, eol), eol), "")), nil
}

// preview shows lines [from, to) (0-based) marked with '+' and context
// lines around them, numbered as in the new file.
func (t *textFile) preview(from, to int) string {
	const context = 2
	var b strings.Builder
	lo, hi := max(from-context, 0), min(to+context, len(t.lines))
	for k := lo; k < hi; k++ {
		mark := " "
		if k >= from && k < to {
			mark = "+"
		}
		fmt.Fprintf(&b, "%s%5d: %s\n", mark, k+1, strings.TrimRight(t.lines[k], "\r\n"))
	}
	return b.String()
}

func (f *fileTools) replaceLines(ctx context.Context, a replaceArgs) (string, error) {
	unlock, err := f.lockFor(ctx, a.Path)
	if err != nil {
		return "", err
	}
	defer unlock()
	t, err := f.loadText(a.Path)
	if err != nil {
		return "", err
	}
	n := len(t.lines)
	switch {
	case a.LineEnd < a.LineStart:
		return "", Errorf(TypeValidationFailed, "line_end (%d) is before line_start (%d)", a.LineEnd, a.LineStart)
	case a.LineStart > n:
		return "", Errorf(TypeValidationFailed, "line_start %d is out of range: %s has %d lines", a.LineStart, a.Path, n)
	case a.LineEnd > n:
		return "", Errorf(TypeValidationFailed, "line_end %d is out of range: %s has %d lines", a.LineEnd, a.Path, n)
	}
	content, unnumbered := f.ownNumbersCut(a.LineStart, a.NewContent)
	if err := f.refuseNumbered("new_content", "", "", a.LineStart, content); err != nil {
		return "", err
	}
	repl := t.newLines(content)
	if err := t.splice(a.LineStart-1, a.LineEnd, repl); err != nil {
		return "", err
	}
	f.edited(t.rel)
	removed := a.LineEnd - a.LineStart + 1
	s := fmt.Sprintf("Replaced lines %d-%d (%s) of %s with %s%s; the file now has %d lines.\n",
		a.LineStart, a.LineEnd, plural(removed, "line"), display(t.rel), plural(len(repl), "line"), unnumbered, len(t.lines))
	if len(t.lines) > 0 {
		s += t.preview(a.LineStart-1, a.LineStart-1+len(repl))
	}
	return s, nil
}

func (f *fileTools) insertLines(ctx context.Context, a insertArgs) (string, error) {
	unlock, err := f.lockFor(ctx, a.Path)
	if err != nil {
		return "", err
	}
	defer unlock()
	t, err := f.loadText(a.Path)
	if err != nil {
		return "", err
	}
	n := len(t.lines)
	if a.LineStart > n+1 {
		return "", Errorf(TypeValidationFailed, "line_start %d is out of range: %s has %d lines, so line_start can be 1 to %d", a.LineStart, a.Path, n, n+1)
	}
	content, unnumbered := f.ownNumbersCut(a.LineStart, a.NewContent)
	if err := f.refuseNumbered("new_content", "", "", a.LineStart, content); err != nil {
		return "", err
	}
	repl := t.newLines(content)
	if len(repl) == 0 {
		return "", Errorf(TypeValidationFailed, "new_content is empty: nothing to insert")
	}
	if err := t.splice(a.LineStart-1, a.LineStart-1, repl); err != nil {
		return "", err
	}
	f.edited(t.rel)
	where := fmt.Sprintf("before line %d", a.LineStart)
	if a.LineStart == n+1 {
		where = "at the end"
	}
	return fmt.Sprintf("Inserted %s%s %s of %s; the file now has %d lines.\n%s",
		plural(len(repl), "line"), unnumbered, where, display(t.rel), len(t.lines), t.preview(a.LineStart-1, a.LineStart-1+len(repl))), nil
}

// ownNumbersCut returns the new content of a line edit at line at
// without the numbers read_file would show its lines with once they are
// in ("5: dan,52" inserted at line 5): every line numbered, from at on.
// Small models copy read_file's numbering into what they add (asked to
// add a row, the 1.5B inserted "5: dan,52" at line 5 and, refused, told
// the user the row was in); the numbers are not part of the text, and a
// file's own line carries its own number so only by chance. A file read
// copied with its numbers is refused still (refuseNumbered): the model
// is to learn which text it copies. The note says that the numbers were
// left out ("" when content is returned as it is).
func (f *fileTools) ownNumbersCut(at int, content string) (string, string) {
	start, texts, all := numberedLines(content)
	if !all || start != at || len(texts) == 0 {
		return content, ""
	}
	if _, copied := f.numberedCopy(strings.Join(texts, "\n")); start == 1 && copied {
		return content, ""
	}
	return strings.Join(texts, "\n") + "\n", fmt.Sprintf(" (without the line numbers %d: … that read_file shows)", at)
}

// Unnumbered returns the text of a whole file as read_file shows it (each
// line as "N: text", numbered from 1) as its lines without the numbers.
// It reports false for anything else: a part of a file, a curated read, a
// cut line, an empty file or an error.
func Unnumbered(result string) ([]string, bool) { return UnnumberedFrom(result, 1) }

// WholeLines returns the number of lines of a file that result, a
// read_file result, shows whole: numbered from 1 to its end, maybe
// followed by a table's figures (tableNote). It reports false for a part
// of a file, a line cut short or any other text.
func WholeLines(result string) (int, bool) {
	body, _ := SplitTableNote(result)
	lines, ok := Unnumbered(body)
	return len(lines), ok
}

// SplitTableNote returns a read_file result's numbered lines and the
// figures of a table that follow them (tableNote: "[table: …]\n"; ""
// when there are none). A file's own lines are numbered, so none of them
// begins as the figures do.
func SplitTableNote(result string) (lines, note string) {
	body, figures, ok := strings.Cut(result, "\n"+tableMark)
	if !ok {
		return result, ""
	}
	return body + "\n", tableMark + figures
}

// UnnumberedFrom is Unnumbered for lines numbered from first: a part of a
// file shown as read_file shows it.
func UnnumberedFrom(result string, first int) ([]string, bool) {
	if !strings.HasSuffix(result, "\n") {
		return nil, false
	}
	start, texts, all := numberedLines(result)
	if start != first || !all {
		return nil, false
	}
	for _, t := range texts {
		if strings.Contains(t, " [line cut at ") {
			return nil, false
		}
	}
	return texts, true
}
