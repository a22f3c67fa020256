package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/internal/testenv"
	"github.com/offgrid-ai/offgrid/tools"
)

// faultServer is a small MCP server in Python that misbehaves as its
// first argument says; it appends its pid (and those of the processes
// it starts) to the file of its second argument, and in mode "ignore"
// each method it reads, with the time, to that file's name + ".read".
const faultServer = `
import json, os, subprocess, sys, time

mode, pidfile = sys.argv[1], sys.argv[2]
def note(pid):
    with open(pidfile, "a") as f:
        f.write("%d\n" % pid)
note(os.getpid())
out = sys.stdout.buffer

def send(obj):
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()

def result(mid, r):
    send({"jsonrpc": "2.0", "id": mid, "result": r})

def text(s):
    return {"content": [{"type": "text", "text": s}]}

empty = {"type": "object", "properties": {}}
tools = [{"name": n, "description": "test tool " + n, "inputSchema": empty}
         for n in ["echo", "die", "hang", "huge", "flood", "errflood", "pid"]]
if mode == "bigdesc":
    tools.append({"name": "wordy", "description": "w" * (2 << 20), "inputSchema": empty})
if mode == "recursive":
    tools.append({"name": "tree", "description": "a tree", "inputSchema": {
        "type": "object", "properties": {"root": {"$ref": "#/$defs/node"}}, "required": ["root"],
        "$defs": {"node": {"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}}})
if mode == "many":
    tools = [{"name": "t%d" % i, "description": "tool %d" % i, "inputSchema": empty} for i in range(1000)]

sys.stderr.write("fault server: %s\n" % mode)
sys.stderr.flush()
if mode == "mute":
    time.sleep(3600)
if mode == "diestart":
    sys.stderr.write("fatal: no config file\n")
    sys.exit(2)
if mode == "child":
    note(subprocess.Popen(["sleep", "300"]).pid)

for line in sys.stdin:
    if mode == "garbage":
        out.write(b"Server ready! Listening...\n")
        out.flush()
        continue
    m = json.loads(line)
    meth, mid = m.get("method"), m.get("id")
    if mode == "ignore":
        with open(pidfile + ".read", "a") as f:
            f.write("%s %.6f\n" % (meth, time.time()))
    if mid is None:
        continue
    if meth == "initialize":
        result(mid, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                     "serverInfo": {"name": "fault", "version": "1"}})
    elif meth == "tools/list":
        result(mid, {"tools": tools})
    elif meth == "ping":
        result(mid, {})
    elif meth == "tools/call":
        name = m["params"]["name"]
        if name == "die":
            sys.stderr.write("fatal: out of cheese\n")
            sys.stderr.flush()
            os._exit(3)
        elif name == "hang":
            continue
        elif name == "huge":
            head = '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' % json.dumps(mid)
            out.write(head.encode() + b"x" * (50 << 20) + b'"}]}}\n')
            out.flush()
        elif name == "flood":
            n = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                            "params": {"level": "info", "data": "working..."}}).encode() + b"\n"
            out.write(n * 200000)
            result(mid, text("flooded"))
        elif name == "errflood":
            sys.stderr.buffer.write((b"e" * 1023 + b"\n") * (20 << 10))
            sys.stderr.flush()
            result(mid, text("err flooded"))
        elif name == "pid":
            result(mid, text(str(os.getpid())))
        else:
            result(mid, text("echo " + name))
    elif mode == "ignore":
        continue
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "method not found: " + meth}})
`

// fault returns the Server config of the fault server in mode, and the
// file its pids go to.
func fault(t *testing.T, name, mode string) (Server, string) {
	t.Helper()
	python := testenv.Python(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "server.py")
	if err := os.WriteFile(script, []byte(faultServer), 0o644); err != nil {
		t.Fatal(err)
	}
	pids := filepath.Join(dir, "pids")
	return Server{Name: name, Command: python, Args: []string{script, mode, pids}, Optional: true, Origin: "test"}, pids
}

// pidsOf returns the pids the fault server wrote.
func pidsOf(t *testing.T, file string) []int {
	t.Helper()
	data, _ := os.ReadFile(file)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// allGone fails the test unless every pid in file is gone (within a
// short wait: the kernel reaps asynchronously).
func allGone(t *testing.T, file string) {
	t.Helper()
	for _, pid := range pidsOf(t, file) {
		deadline := time.Now().Add(3 * time.Second)
		for !gone(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !gone(pid) {
			t.Errorf("process %d is left running", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// echoTool is a built-in tool beside the servers' ones.
func echoTool(reg *tools.Registry) {
	tools.Register(reg, "echo", "", tools.Safe, func(_ context.Context, a struct {
		S string `json:"s"`
	}) (string, error) {
		return a.S, nil
	})
}

// TestStartFaults: a server that does not start within its connect
// timeout, exits at once or does not speak MCP is reported once, with
// its command and its last words; its process is gone; the healthy
// server and the built-in tools are there as if it were not configured.
func TestStartFaults(t *testing.T) {
	// Long enough for python3 to start and say its last words on a
	// loaded machine (1.5s was not, on one ten times slower than usual).
	const connect = 5 * time.Second
	for _, tc := range []struct {
		mode    string
		has     []string
		connect time.Duration
		bound   time.Duration // Start returns by then: no later than the deadline, or well before it
	}{
		{"mute", []string{"no answer to initialize within 5s", "fault server: mute"}, connect, connect + 5*time.Second},
		{"garbage", []string{"no answer to initialize within 5s", `line(s) that are not JSON-RPC, the last: "Server ready! Listening..."`}, connect, connect + 5*time.Second},
		// A server that exits is reported when it exits, not at the
		// deadline: with a 30 s deadline, well before it (slack for a
		// loaded machine).
		{"diestart", []string{"it exited (exit status 2)", "fatal: no config file"}, 30 * time.Second, 15 * time.Second},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			bad, pids := fault(t, "bad", tc.mode)
			good, goodPids := fault(t, "good", "normal")
			// The healthy server's own deadline wins, so that only the
			// bad one can miss the test's short one on a loaded machine.
			good.ConnectTimeout = 30 * time.Second
			reg := tools.NewRegistry()
			echoTool(reg)
			w := &warnings{}
			begin := time.Now()
			s, err := Start(t.Context(), reg, []Server{bad, good}, Options{ConnectTimeout: tc.connect, Warn: w.add})
			elapsed := time.Since(begin)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				s.Close()
				allGone(t, goodPids)
			}()
			if elapsed > tc.bound {
				t.Errorf("Start took %s, want at most %s", elapsed, tc.bound)
			}
			failed := s.Failed()
			if len(failed) != 1 || !errors.Is(failed[0], ErrNotStarted) {
				t.Fatalf("Failed() = %v, want the one bad server", failed)
			}
			msg := failed[0].Error()
			for _, want := range append([]string{"MCP server bad (" + testenv.Python(t) + " ", tc.mode + " ", "did not start"}, tc.has...) {
				if !strings.Contains(msg, want) {
					t.Errorf("the report lacks %q: %s", want, msg)
				}
			}
			if len(w.list) != 1 || !strings.Contains(w.list[0], msg) {
				t.Errorf("reported %d times: %q", len(w.list), w.list)
			}
			allGone(t, pids)
			if res := reg.Execute(t.Context(), "good_pid", nil); !res.Success {
				t.Errorf("the healthy server's tool: %s", shortJSON(res))
			}
			if res := reg.Execute(t.Context(), "echo", json.RawMessage(`{"s":"here"}`)); res.Text() != "here" {
				t.Errorf("the built-in tool: %s", shortJSON(res))
			}
			if _, ok := reg.Lookup("bad_echo"); ok {
				t.Error("the failed server's tools are registered")
			}
		})
	}
}

// TestStartConcurrent: servers start side by side: two mute ones take
// one connect timeout, not two.
func TestStartConcurrent(t *testing.T) {
	const connect = time.Second
	a, pa := fault(t, "a", "mute")
	b, pb := fault(t, "b", "mute")
	begin := time.Now()
	s, err := Start(t.Context(), tools.NewRegistry(), []Server{a, b}, Options{ConnectTimeout: connect})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if d := time.Since(begin); d > connect+time.Second {
		t.Errorf("two mute servers took %s to give up on", d)
	}
	if len(s.Failed()) != 2 {
		t.Errorf("Failed() = %v", s.Failed())
	}
	allGone(t, pa)
	allGone(t, pb)
}

// TestStartNotOptional: a server that must start (as bench's) and does
// not is Start's error, in the connect timeout.
func TestStartNotOptional(t *testing.T) {
	bad, pids := fault(t, "bad", "mute")
	bad.Optional = false
	begin := time.Now()
	_, err := Start(t.Context(), tools.NewRegistry(), []Server{bad}, Options{ConnectTimeout: time.Second})
	if !errors.Is(err, ErrNotStarted) || time.Since(begin) > 2*time.Second {
		t.Errorf("err %v after %s", err, time.Since(begin))
	}
	allGone(t, pids)
}

// TestIgnoresDiscover: a server of an older protocol that ignores
// server/discover instead of answering "method not found" is spoken to
// with initialize as soon as it answers the ping sent after it, well
// before discoverWait. The server notes when it read each request: on a
// loaded machine, one that read server/discover too late to answer the
// ping in time says nothing of the probe, and is started again.
func TestIgnoresDiscover(t *testing.T) {
	const connect = 10 * time.Second
	wait := discoverWait(connect)
	for attempt := 1; ; attempt++ {
		srv, pids := fault(t, "old", "ignore")
		reg := tools.NewRegistry()
		begin := time.Now()
		s, err := Start(t.Context(), reg, []Server{srv}, Options{ConnectTimeout: connect})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Failed()) > 0 {
			t.Fatalf("failed %v", s.Failed())
		}
		if res := reg.Execute(t.Context(), "old_echo", nil); res.Text() != "echo echo" {
			t.Errorf("old_echo: %s", shortJSON(res))
		}
		s.Close()
		allGone(t, pids)
		read := readTimes(t, pids+".read")
		discover, initialize := read["server/discover"].Sub(begin), read["initialize"].Sub(begin)
		if discover > wait-wait/4 {
			if attempt < 3 {
				t.Logf("the server read server/discover after %s; starting it again", discover)
				continue
			}
			t.Fatalf("the server read server/discover after %s, three times: too late to tell the probe from discoverWait (%s)", discover, wait)
		}
		if initialize >= wait {
			t.Errorf("server/discover read after %s, but initialize only after %s: the probe's answer was not used", discover, initialize)
		}
		return
	}
}

// readTimes returns when the fault server read each method, from the
// file it notes them in.
func readTimes(t *testing.T, file string) map[string]time.Time {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]time.Time{}
	for line := range strings.Lines(string(data)) {
		meth, at, _ := strings.Cut(strings.TrimSpace(line), " ")
		sec, err := strconv.ParseFloat(at, 64)
		if err != nil {
			t.Fatalf("%s: %q", file, line)
		}
		if _, ok := read[meth]; !ok {
			read[meth] = time.Unix(0, int64(sec*1e9))
		}
	}
	for _, m := range []string{"server/discover", "initialize"} {
		if _, ok := read[m]; !ok {
			t.Fatalf("the server did not read %s: %q", m, data)
		}
	}
	return read
}

// TestCallFaults: each misbehaving call fails with a clear message in
// bounded time, and the server answers the next call.
func TestCallFaults(t *testing.T) {
	srv, pids := fault(t, "f", "normal")
	reg := tools.NewRegistry()
	echoTool(reg)
	w := &warnings{}
	s, err := Start(t.Context(), reg, []Server{srv}, Options{Timeout: 3 * time.Second, ConnectTimeout: 5 * time.Second, Warn: w.add})
	if err != nil || len(s.Failed()) > 0 {
		t.Fatal(err, s.Failed())
	}
	defer func() {
		s.Close()
		allGone(t, pids)
	}()
	for _, tc := range []struct {
		tool  string
		ok    bool
		has   string
		bound time.Duration
	}{
		{"f_huge", false, "the result of huge is 50.0 MiB, over the 16.0 MiB offgrid reads in one message; the call failed, the server goes on", 5 * time.Second},
		{"f_flood", true, "flooded", 5 * time.Second},
		{"f_errflood", true, "err flooded", 5 * time.Second},
		{"f_hang", false, "MCP server f did not answer hang within 3s; the call was cancelled", 4 * time.Second},
	} {
		begin := time.Now()
		res := reg.Execute(t.Context(), tc.tool, nil)
		elapsed := time.Since(begin)
		if res.Success != tc.ok || !strings.Contains(res.Text()+res.Message(), tc.has) || elapsed > tc.bound {
			t.Errorf("%s: %s after %s; want success %v with %q within %s", tc.tool, shortJSON(res), elapsed, tc.ok, tc.has, tc.bound)
		}
		if res := reg.Execute(t.Context(), "f_echo", nil); res.Text() != "echo echo" {
			t.Errorf("the call after %s: %s", tc.tool, shortJSON(res))
		}
	}
	if res := reg.Execute(t.Context(), "echo", json.RawMessage(`{"s":"here"}`)); res.Text() != "here" {
		t.Errorf("the built-in tool: %s", shortJSON(res))
	}
	if n := len(pidsOf(t, pids)); n != 1 {
		t.Errorf("the server was started %d times", n)
	}
}

// TestRestart: a server that dies in a call is started again on the next
// call, at most once per restart interval, with the restart reported;
// the dead process is reaped.
func TestRestart(t *testing.T) {
	srv, pids := fault(t, "f", "normal")
	reg := tools.NewRegistry()
	w := &warnings{}
	const interval = 1500 * time.Millisecond
	s, err := Start(t.Context(), reg, []Server{srv}, Options{RestartInterval: interval, Warn: w.add})
	if err != nil || len(s.Failed()) > 0 {
		t.Fatal(err, s.Failed())
	}
	defer func() {
		s.Close()
		allGone(t, pids)
	}()
	died := func(when string) {
		t.Helper()
		res := reg.Execute(t.Context(), "f_die", nil)
		if res.Success || !strings.Contains(res.Message(), "MCP server f is not running: it exited (exit status 3)") ||
			!strings.Contains(res.Message(), "fatal: out of cheese") {
			t.Errorf("%s: the call the server died in: %s", when, shortJSON(res))
		}
	}
	died("first")
	first := pidsOf(t, pids)[0]
	if !gone(first) {
		t.Errorf("the dead server %d was not reaped", first)
	}
	// Too soon: no restart.
	if res := reg.Execute(t.Context(), "f_echo", nil); res.Success || !strings.Contains(res.Message(), "at most once every 1.5s") {
		t.Errorf("a call right after the death: %s", shortJSON(res))
	}
	time.Sleep(interval)
	if res := reg.Execute(t.Context(), "f_echo", nil); res.Text() != "echo echo" {
		t.Errorf("a call after the interval: %s", shortJSON(res))
	}
	if !w.has("MCP server f stopped (it exited (exit status 3)); restarted it") {
		t.Errorf("the restart was not reported: %q", w.list)
	}
	if n := len(pidsOf(t, pids)); n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}
	died("again")
	if res := reg.Execute(t.Context(), "f_echo", nil); res.Success {
		t.Errorf("restarted twice within the interval: %s", shortJSON(res))
	}
}

// TestNoOrphans: Close reaps the server's whole process group, what it
// started included.
func TestNoOrphans(t *testing.T) {
	srv, pids := fault(t, "f", "child")
	s, err := Start(t.Context(), tools.NewRegistry(), []Server{srv}, Options{})
	if err != nil || len(s.Failed()) > 0 {
		t.Fatal(err, s.Failed())
	}
	if n := len(pidsOf(t, pids)); n != 2 {
		t.Fatalf("pids %v, want the server's and its child's", pidsOf(t, pids))
	}
	begin := time.Now()
	s.Close()
	if d := time.Since(begin); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
	allGone(t, pids)
}

// TestMetadataFaults: a server's oversized declarations are bounded: a
// long description cut, a recursive schema made finite, a long tool list
// cut, each with a warning; the other tools work.
func TestMetadataFaults(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		warn  string
		check func(t *testing.T, reg *tools.Registry)
	}{
		{"bigdesc", "MCP tool f_wordy: its description of 2.0 MiB was cut to 4.0 KiB", func(t *testing.T, reg *tools.Registry) {
			if tl, ok := reg.Lookup("f_wordy"); !ok || len(tl.Description) > MaxDescription+len("…") {
				t.Errorf("f_wordy: present %v, description of %d bytes", ok, len(tl.Description))
			}
		}},
		{"recursive", "MCP tool f_tree: $ref #/$defs/node is recursive: inside itself it accepts any JSON value", func(t *testing.T, reg *tools.Registry) {
			tl, ok := reg.Lookup("f_tree")
			if !ok || strings.Contains(string(tl.Parameters), "$ref") {
				t.Fatalf("f_tree: present %v, schema %s", ok, tl.Parameters)
			}
			res := reg.Execute(t.Context(), "f_tree", json.RawMessage(`{"root":{"name":"a","children":[{"name":"b","children":[]}]}}`))
			if res.Text() != "echo tree" {
				t.Errorf("f_tree: %s", shortJSON(res))
			}
		}},
		{"many", "MCP server f offers more than 128 tools: only the first 128 are offered", func(t *testing.T, reg *tools.Registry) {
			if n := len(reg.Tools()); n != MaxTools+1 { // and echo
				t.Errorf("%d tools registered", n)
			}
		}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			srv, pids := fault(t, "f", tc.mode)
			reg := tools.NewRegistry()
			echoTool(reg)
			w := &warnings{}
			begin := time.Now()
			s, err := Start(t.Context(), reg, []Server{srv}, Options{Warn: w.add})
			if err != nil || len(s.Failed()) > 0 {
				t.Fatal(err, s.Failed())
			}
			if d := time.Since(begin); d > 10*time.Second {
				t.Errorf("Start took %s", d)
			}
			if !w.has(tc.warn) {
				t.Errorf("no warning %q in %q", tc.warn, w.list)
			}
			tc.check(t, reg)
			if res := reg.Execute(t.Context(), "echo", json.RawMessage(`{"s":"here"}`)); res.Text() != "here" {
				t.Errorf("the built-in tool: %s", shortJSON(res))
			}
			s.Close()
			allGone(t, pids)
		})
	}
}

// TestServerConnectTimeout: a server's own connect timeout wins over
// Options'.
func TestServerConnectTimeout(t *testing.T) {
	srv, pids := fault(t, "m", "mute")
	srv.ConnectTimeout = 500 * time.Millisecond
	begin := time.Now()
	s, err := Start(t.Context(), tools.NewRegistry(), []Server{srv}, Options{ConnectTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if f := s.Failed(); len(f) != 1 || !strings.Contains(f[0].Error(), "within 500ms") || time.Since(begin) > 2*time.Second {
		t.Errorf("failed %v after %s", f, time.Since(begin))
	}
	allGone(t, pids)
}
