package sandbox

import (
	"os"
	"slices"
	"testing"
)

func TestMain(m *testing.M) {
	Serve() // the test binary is its own helper
	os.Exit(m.Run())
}

func TestEnv(t *testing.T) {
	got := Env([]string{"PATH=/bin", "HOME=/home/u", "AWS_SECRET_ACCESS_KEY=s3cret", "LC_ALL=C", "TERM=xterm", "TMPDIR=/tmp", "LD_PRELOAD=/x.so", "BROKEN"}, "/t")
	want := []string{"PATH=/bin", "LC_ALL=C", "TERM=xterm", "HOME=/t", "TMPDIR=/t"}
	if !slices.Equal(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
	if got := Env(nil, "/t"); !slices.Contains(got, "PATH=/usr/local/bin:/usr/bin:/bin") {
		t.Errorf("Env without PATH = %q: want a default PATH", got)
	}
}
