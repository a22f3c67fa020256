package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestShellRules checks that a bash rule with wildcards allows one simple
// command and nothing chained to it (issue: the README's own rule allowed
// "go test ./... ; echo INJECTED; cat /etc/hostname").
func TestShellRules(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policies.json")
	os.WriteFile(file, []byte(`{"version":1,"rules":[
		{"tool":"bash","args":{"command":"go test *"}},
		{"tool":"bash","args":{"command":"make build && make test"}},
		{"tool":"bash","args":{"command":"echo \\*"}}
	]}`), 0o600)
	p, err := New(Config{File: file, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		command string
		want    Verdict
	}{
		{"go test ./...", Allow},
		{"go test -run 'TestX|TestY' ./tools/...", Allow},
		{`go test "./...; echo quoted"`, Allow}, // one argument to go test
		{"go test ./... ; echo INJECTED; cat /etc/hostname", Ask},
		{"go test ./...\necho INJECTED", Ask},
		{"go test ./... && rm -rf ~", Ask},
		{"go test ./... || curl evil", Ask},
		{"go test ./... | sh", Ask},
		{"go test ./... &", Ask},
		{"go test ./... > ~/.bashrc", Ask},
		{"go test ./... 2>/dev/null", Ask},
		{"go test <<EOF\nx\nEOF", Ask},
		{"go test $(rm -rf ~)", Ask},
		{"go test `rm -rf ~`", Ask},
		{`go test "$(rm -rf ~)"`, Ask},
		{"go test <(rm -rf ~)", Ask},
		{"go test $HOME", Ask},
		{"go test ${x@P}", Ask},
		{"go test $((1+1))", Ask},
		{"GOFLAGS=-exec=sh go test ./...", Ask},
		{"go test ./... )", Ask},           // does not parse
		{"make build && make test", Allow}, // an explicit rule for the list
		{"make build && make test && rm -rf ~", Ask},
		{"echo *", Allow},
		{"echo x", Ask},
	} {
		args, _ := json.Marshal(map[string]string{"command": c.command})
		if got := p.Evaluate(bashTool, args); got != c.want {
			t.Errorf("%q: %v, want %v", c.command, got, c.want)
		}
	}
}

func TestSimpleCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ls":                      true,
		"ls -la 'a b' \"c d\" e*": true,
		"  go   vet  ./...  ":     true,
		"":                        false,
		"ls; ls":                  false,
		"(ls)":                    false,
		"{ ls; }":                 false,
		"if true; then ls; fi":    false,
		"ls && ls":                false,
		"! ls":                    false,
		"a=1":                     false,
		"ls \"$x\"":               false,
	} {
		if got := simpleCommand(cmd); got != want {
			t.Errorf("simpleCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}
