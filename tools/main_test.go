package tools

import (
	"os"
	"testing"
)

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
