package gbnf

import (
	"unicode/utf8"
)

// item is an Earley item: production prod with dot symbols recognized,
// count repetitions of the symbol at dot already matched, started at
// input position origin.
type item struct {
	prod, dot, count, origin int32
}

type earleySet struct {
	items     []item
	seen      map[item]struct{}
	waiting   map[int32][]item // rule -> items whose dot symbol is that rule
	predicted map[int32]bool
}

func newSet() *earleySet {
	return &earleySet{seen: map[item]struct{}{}, waiting: map[int32][]item{}, predicted: map[int32]bool{}}
}

func (s *earleySet) add(it item) {
	if _, ok := s.seen[it]; ok {
		return
	}
	s.seen[it] = struct{}{}
	s.items = append(s.items, it)
}

// Accepts reports whether input, as UTF-8 text, is a complete sentence of
// rule root. It is false for invalid UTF-8 and for an undefined root.
func (g *Grammar) Accepts(root, input string) bool {
	n, ok := g.match(root, input)
	return ok && n == len(input)
}

// IsPrefix reports whether input can be extended to a sentence of rule
// root, that is whether a constrained sampler could have produced it so far.
func (g *Grammar) IsPrefix(root, input string) bool {
	n, _ := g.match(root, input)
	return n == len(input)
}

// match runs the recognizer and returns how many bytes of input stay a
// viable prefix and whether the whole input is a sentence.
func (g *Grammar) match(root, input string) (viable int, complete bool) {
	rid, ok := g.names[root]
	if !ok || !g.rules[rid].defined {
		return -1, false
	}
	runes := make([]rune, 0, len(input))
	offsets := make([]int, 0, len(input)+1)
	for i, r := range input {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(input[i:]); size <= 1 {
				return i, false
			}
		}
		runes = append(runes, r)
		offsets = append(offsets, i)
	}
	offsets = append(offsets, len(input))

	sets := make([]*earleySet, len(runes)+1)
	sets[0] = newSet()
	for _, pi := range g.rules[rid].prods {
		sets[0].add(item{prod: pi})
	}
	sets[0].predicted[int32(rid)] = true
	for i := 0; i <= len(runes); i++ {
		cur := sets[i]
		if cur == nil || len(cur.items) == 0 {
			return offsets[i-1], false
		}
		if i < len(runes) {
			sets[i+1] = newSet()
		}
		for j := 0; j < len(cur.items); j++ {
			it := cur.items[j]
			pr := &g.prods[it.prod]
			if int(it.dot) == len(pr.syms) {
				for _, w := range sets[it.origin].waiting[pr.rule] {
					cur.add(g.advance(w))
				}
				continue
			}
			s := &pr.syms[it.dot]
			if it.count >= s.min {
				cur.add(item{prod: it.prod, dot: it.dot + 1, origin: it.origin})
			}
			if s.max >= 0 && it.count >= s.max {
				continue
			}
			if s.kind == symChar {
				if i < len(runes) && s.matches(runes[i]) {
					sets[i+1].add(g.advance(it))
				}
				continue
			}
			cur.waiting[s.rule] = append(cur.waiting[s.rule], it)
			if !cur.predicted[s.rule] {
				cur.predicted[s.rule] = true
				for _, pi := range g.rules[s.rule].prods {
					cur.add(item{prod: pi, origin: int32(i)})
				}
			}
			if g.nullable[s.rule] {
				// Aycock–Horspool: a nullable rule completes at once.
				cur.add(g.advance(it))
			}
		}
	}
	for _, it := range sets[len(runes)].items {
		pr := &g.prods[it.prod]
		if it.origin == 0 && pr.rule == int32(rid) && int(it.dot) == len(pr.syms) {
			return len(input), true
		}
	}
	return len(input), false
}

// advance counts one more repetition of the symbol at it's dot. Counts of
// an unbounded symbol are capped at its minimum, where all larger counts
// behave alike.
func (g *Grammar) advance(it item) item {
	s := &g.prods[it.prod].syms[it.dot]
	it.count++
	if s.max < 0 && it.count > s.min {
		it.count = s.min
	}
	return it
}
