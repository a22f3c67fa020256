package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// flagTable is the Markdown table of a command's flags, as the README
// shows them (`offgrid help --markdown run`): every visible flag, its
// short form, its default and its help, the config file set aside.
func flagTable(command string) (string, error) {
	env := &cliEnv{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	fs, _, err := commandFlags(env, command)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| flag | default | what it does |\n|---|---|---|\n")
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		name := "`--" + f.Name + "`"
		if f.Shorthand != "" {
			name = "`-" + f.Shorthand + "`, " + name
		}
		def := f.DefValue
		switch {
		case def == "" || def == "[]" || def == "false" && f.Value.Type() == "bool":
			def = ""
		default:
			def = "`" + def + "`"
		}
		usage := strings.ReplaceAll(f.Usage, "|", `\|`)
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, def, usage)
	})
	return b.String(), nil
}
