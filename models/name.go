package models

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// MaxNameLen is the longest model name the store accepts.
const MaxNameLen = 128

// ValidName reports whether name can name a model in the store: 1 to
// MaxNameLen letters, digits, '.', '_' or '-', starting with a letter or
// digit, not "default" (which resolves to the default model) and not ending
// in ".gguf" (which marks a path).
func ValidName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty", ErrInvalidName)
	case len(name) > MaxNameLen:
		return fmt.Errorf("%w: %q is longer than %d bytes", ErrInvalidName, name, MaxNameLen)
	case name == DefaultRef:
		return fmt.Errorf("%w: %q is reserved for the default model", ErrInvalidName, name)
	case strings.HasSuffix(strings.ToLower(name), ".gguf"):
		return fmt.Errorf("%w: %q ends in .gguf, which marks a path", ErrInvalidName, name)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			i > 0 && (r == '.' || r == '_' || r == '-')
		if !ok {
			return fmt.Errorf("%w: %q (use letters, digits, '.', '_' and '-', starting with a letter or digit)", ErrInvalidName, name)
		}
	}
	return nil
}

// NameFromURL derives a store name from a download URL or file path:
// the last path element without its .gguf/.zst extensions, lower-cased,
// with other characters replaced by '-'.
func NameFromURL(rawURL string) string {
	p := rawURL
	if u, err := url.Parse(rawURL); err == nil && u.Path != "" {
		p = u.Path
	}
	base := path.Base(strings.ReplaceAll(p, "\\", "/"))
	for _, ext := range []string{".zst", ".gguf"} {
		if strings.HasSuffix(strings.ToLower(base), ext) {
			base = base[:len(base)-len(ext)]
		}
	}
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-._")
	if len(name) > MaxNameLen {
		name = strings.TrimRight(name[:MaxNameLen], "-._")
	}
	if ValidName(name) != nil {
		return "model"
	}
	return name
}
