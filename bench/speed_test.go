package bench

import "testing"

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want Spread
	}{
		{nil, Spread{}},
		{[]float64{3}, Spread{3, 3, 3}},
		{[]float64{5, 1, 3}, Spread{1, 3, 5}},
		{[]float64{4, 1, 3, 2}, Spread{1, 2.5, 4}},
	} {
		if got := spread(tc.in); got != tc.want {
			t.Errorf("spread(%v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
