package inference_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/offgrid-ai/offgrid/inference"
)

// mapCache is a PrefixCache in memory that can hand back damaged states.
type mapCache struct {
	states map[string][]byte
	saves  int
	damage bool // Load returns half the state
}

func (m *mapCache) key(layout string, p []inference.Token) string { return fmt.Sprint(layout, p) }

func (m *mapCache) Load(layout string, p []inference.Token) ([]byte, bool) {
	s, ok := m.states[m.key(layout, p)]
	if ok && m.damage {
		s = s[:len(s)/2]
	}
	return s, ok
}

func (m *mapCache) Save(layout string, p []inference.Token, state []byte) {
	m.states[m.key(layout, p)] = state
	m.saves++
}

// TestPrefixCacheHook: Request.Prefix is saved on a miss and loaded on a
// hit with the same output; a state the engine cannot load is decoded
// again and replaced; tokens already in the KV cache still count as
// reused.
func TestPrefixCacheHook(t *testing.T) {
	m := loadTiny(t)
	c := newContext(t, m, 512)
	pc := &mapCache{states: map[string][]byte{}}
	c.SetPrefixCache(pc)
	prompt := make([]inference.Token, 140)
	for i := range prompt {
		prompt[i] = inference.Token(20 + i*3%250)
	}
	const prefix = 100
	req := inference.Request{Prompt: prompt, Prefix: prefix, MaxTokens: 12, Sampling: inference.Sampling{Temperature: 0}}
	type stats struct{ reused, loaded, decoded int }
	var want []inference.Token
	for _, step := range []struct {
		name   string
		fill   int // prompt tokens in the KV cache before
		damage bool
		want   stats
		saves  int
	}{
		{"miss", 0, false, stats{0, 0, 140}, 1},
		{"hit", 0, false, stats{0, prefix, 40}, 1},
		{"hit over a shorter part", 30, false, stats{0, prefix, 40}, 1},
		// The failed load empties the cache: the 30 tokens are decoded again.
		{"damaged", 30, true, stats{0, 0, 140}, 2},
		{"hit after replacing", 0, false, stats{0, prefix, 40}, 2},
	} {
		c.Reset()
		if step.fill > 0 {
			c.SetPrefixCache(nil)
			generate(t, c, inference.Request{Prompt: prompt[:step.fill], MaxTokens: 1})
			c.SetPrefixCache(pc)
		}
		pc.damage = step.damage
		res := generate(t, c, req)
		got := stats{res.Stats.PromptReused, res.Stats.PromptLoaded, res.Stats.PromptDecoded}
		if got != step.want || pc.saves != step.saves {
			t.Errorf("%s: %+v, %d saves; want %+v, %d", step.name, got, pc.saves, step.want, step.saves)
		}
		if want == nil {
			want = res.Tokens
		} else if !slices.Equal(res.Tokens, want) {
			t.Errorf("%s: %v, on the miss: %v", step.name, res.Tokens, want)
		}
	}
	c.SetPrefixCache(nil)
	c.Reset()
	if plain := generate(t, c, inference.Request{Prompt: prompt, MaxTokens: 12}); !slices.Equal(plain.Tokens, want) {
		t.Errorf("without Prefix: %v, with: %v", plain.Tokens, want)
	}
	// The KV cache holds the whole prompt; a prompt sharing its first 60
	// tokens, with another prefix, reuses those 60 and decodes the rest.
	other := append(slices.Clone(prompt[:60]), prompt[70:]...)
	res := generate(t, c, inference.Request{Prompt: other, Prefix: 90, MaxTokens: 4})
	if s := res.Stats; s.PromptReused != 60 || s.PromptLoaded != 0 || s.PromptDecoded != len(other)-60 {
		t.Errorf("partial reuse: %+v", s)
	}
}
