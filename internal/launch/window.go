//go:build cgo

package launch

import (
	"errors"
	"fmt"
	"io"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/tools"
)

// DefaultContextSize is offgrid's context window: room for a few tool
// results of a few thousand tokens each on the catalog models, whose KV
// cache then takes 96 MiB (Qwen2.5-Coder 0.5B) to 224 MiB (1.5B).
const DefaultContextSize = 8192

// resultRoom is the room a window must leave, beyond the system prompt,
// the tool definitions and the reply budget, for requests and results.
const resultRoom = 1024

// ErrWindow is wrapped by a context window that cannot be had.
var ErrWindow = errors.New("context window")

// ContextWindow chooses the context window for an agent over reg:
// requested tokens (0: the model's trained context). A window too small
// for the system prompt, the tool definitions, the reply budget and some
// room is raised, up to the trained context; if even that is too small,
// the tools are described compactly (opts is changed). A window whose KV
// cache cannot fit in the available memory is refused. Adjustments are
// reported to warn.
func ContextWindow(m *inference.Model, requested int, reg *tools.Registry, opts *agent.Options, warn io.Writer) (int, error) {
	trained := m.ContextLength()
	window := requested
	if window <= 0 {
		window = trained
	}
	if window <= 0 {
		window = DefaultContextSize
	}
	info := agent.InfoFromModel(m)
	need := func() (int, int, error) {
		base, err := agent.BaseTokens(m, info, reg, *opts)
		if err != nil {
			return 0, 0, err
		}
		reply := opts.MaxTokens
		if reply <= 0 {
			reply = 1024
		}
		return base, base + reply + resultRoom, nil
	}
	base, min, err := need()
	if err != nil {
		return 0, err
	}
	if window < min && trained > 0 && min > trained && !opts.CompactTools {
		opts.CompactTools = true
		fmt.Fprintf(warn, "warning: the tool definitions take %d tokens, too many for this model's %d-token context; describing them compactly\n", base, trained)
		if base, min, err = need(); err != nil {
			return 0, err
		}
	}
	if window < min {
		grown := (min + 1023) / 1024 * 1024
		if trained >= min && grown > trained {
			grown = trained
		}
		fmt.Fprintf(warn, "warning: the system prompt and tool definitions take %d tokens, the reply up to %d: context window raised from %d to %d tokens\n",
			base, min-base-resultRoom, window, grown)
		window = grown
	}
	if avail, ok := inference.AvailableMemory(); ok {
		if kv := m.KVCacheBytes(window); kv > avail {
			return 0, fmt.Errorf("%w: a %d-token context needs %s for its KV cache, more than the %s of memory available; choose a smaller one with --ctx-size",
				ErrWindow, window, HumanBytes(int64(kv)), HumanBytes(int64(avail)))
		}
	}
	return window, nil
}
