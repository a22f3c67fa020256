package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/curator"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models"
)

// curatorWindow is the context window of the curator's model: the request
// and a few sections of a file, a few dozen tokens of reply.
const curatorWindow = 4096

// sessionCurator is read_file's curator in offgrid run. It ranks a long
// file's sections by the request's words; with useModel, the agent's own
// model, in a small context of its own (made on first use, so that the
// agent's KV cache is kept), picks among the best of them, following the
// REPL's /model. Answers are cached under the cache directory.
type sessionCurator struct {
	cacheDir string
	threads  int
	useModel bool
	mu       sync.Mutex
	cur      *curator.Curator
	model    *curatorModel
}

// newSessionCurator returns a curator with no model yet (see use); its
// answers are cached under offgrid's cache directory, if there is one.
func newSessionCurator(env *cliEnv, threads int, useModel bool) *sessionCurator {
	s := &sessionCurator{threads: threads, useModel: useModel}
	if dir, err := models.CacheDir(env.getenv); err == nil {
		s.cacheDir = filepath.Join(dir, "curator")
	}
	return s
}

// Curate implements tools.Curator.
func (s *sessionCurator) Curate(ctx context.Context, request, name, text string) (curator.Selection, error) {
	s.mu.Lock()
	c := s.cur
	s.mu.Unlock()
	if c == nil {
		c = curator.New(curator.Options{}) // rank only: quicker than a cache
		s.mu.Lock()
		s.cur = c
		s.mu.Unlock()
	}
	return c.Curate(ctx, request, name, text)
}

// use makes m, loaded from path, the curator's model; sha256 is the
// model file's hash, if known, which names the model in the cache keys.
// The returned curatorModel is closed before m.
func (s *sessionCurator) use(m *inference.Model, path, sha256 string) *curatorModel {
	if !s.useModel {
		return nil
	}
	cm := &curatorModel{m: m, threads: s.threads}
	id := "sha256 " + sha256
	if fi, err := os.Stat(path); sha256 == "" && err == nil {
		id = fmt.Sprintf("%s %d %d", filepath.Base(path), fi.Size(), fi.ModTime().UnixNano())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.model = cm
	s.cur = curator.New(curator.Options{Chooser: &curator.ModelChooser{Model: cm}, ID: id, CacheDir: s.cacheDir})
	return cm
}

// curatorModel is a curator.Caller over a model, with a context of its
// own made on first use.
type curatorModel struct {
	m       *inference.Model
	threads int
	mu      sync.Mutex
	ctx     *inference.Context
	c       *agent.Completer
	closed  bool
}

var errCuratorClosed = errors.New("the curator's model is closed")

// Call implements curator.Caller.
func (cm *curatorModel) Call(ctx context.Context, system, user string, tool grammar.Tool, maxTokens int) (json.RawMessage, error) {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	if cm.closed {
		return nil, errCuratorClosed
	}
	if cm.c == nil {
		mc, err := cm.m.NewContext(inference.ContextOptions{ContextSize: curatorWindow, Threads: cm.threads})
		if err != nil {
			return nil, err
		}
		cm.ctx, cm.c = mc, agent.NewCompleter(mc, agent.InfoFromModel(cm.m))
	}
	return cm.c.Call(ctx, system, user, tool, maxTokens)
}

// Close frees the context; later calls fail.
func (cm *curatorModel) Close() {
	if cm == nil {
		return
	}
	cm.mu.Lock()
	defer cm.mu.Unlock()
	cm.closed = true
	if cm.ctx != nil {
		cm.ctx.Close()
		cm.ctx, cm.c = nil, nil
	}
}
