package bench

import (
	"slices"
	"time"
)

// Dist summarises a set of durations.
type Dist struct {
	N   int           `json:"n"`
	P50 time.Duration `json:"p50"`
	P99 time.Duration `json:"p99"`
	Max time.Duration `json:"max"`
}

// Summarise sorts ds and returns its quantiles (nearest rank).
func Summarise(ds []time.Duration) Dist {
	if len(ds) == 0 {
		return Dist{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	q := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.5) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return Dist{N: len(s), P50: q(0.50), P99: q(0.99), Max: s[len(s)-1]}
}
