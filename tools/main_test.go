package tools

import (
	"os"
	"testing"

	"github.com/offgrid-ai/offgrid/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Serve() // the test binary confines the bash tool's commands
	os.Exit(m.Run())
}

// helperExe returns the test binary, which serves as the bash tool's
// sandbox helper.
func helperExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
