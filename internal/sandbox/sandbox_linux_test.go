package sandbox

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// confined runs script with bash confined to a fresh root and temporary
// directory and returns its combined output and exit error.
func confined(t *testing.T, script string) (string, error) {
	t.Helper()
	if what, err := Check(); err != nil {
		t.Skipf("the kernel cannot confine commands here: %v", err)
	} else {
		t.Logf("confinement: %s", what)
	}
	s := Spec{Root: realDir(t), Tmp: realDir(t)}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-c", script)
	cmd.Dir = s.Root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := Start(cmd, exe, s); err != nil {
		t.Fatalf("Start: %v", err)
	}
	err = cmd.Wait()
	return out.String(), err
}

func realDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestStartConfines(t *testing.T) {
	out, err := confined(t, `echo in > inside.txt && cat inside.txt; cat /etc/hostname >/dev/null && echo read-etc; echo x > ../escape.txt || echo write-refused; exec 3<>/dev/tcp/127.0.0.1/9 || echo tcp-refused`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"in\n", "read-etc", "write-refused", "tcp-refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestStartReportsSetupFailure(t *testing.T) {
	if _, err := Check(); err != nil {
		t.Skipf("the kernel cannot confine commands here: %v", err)
	}
	exe, _ := os.Executable()
	cmd := exec.Command("/bin/true")
	err := Start(cmd, exe, Spec{Root: t.TempDir(), Tmp: "/does/not/exist"})
	if !errors.Is(err, ErrConfine) || !strings.Contains(err.Error(), "landlock") {
		t.Fatalf("Start with a missing directory = %v, want ErrConfine naming landlock", err)
	}
}
