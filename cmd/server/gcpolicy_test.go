package main

import (
	"runtime/debug"
	"testing"
)

// A cold build runs the collector at buildGC % of the configured target
// and gives the configured target back afterwards, also when builds
// overlap; a collector turned off stays off.
func TestGCPolicy(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	current := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	for _, tt := range []struct {
		gogc                string
		build, merge, serve int
	}{
		{"", buildGC, analysedGC, serveGC},
		{"200", 2 * buildGC, 2 * analysedGC, 2 * serveGC},
		{"off", -1, -1, -1},
		{"nonsense", buildGC, analysedGC, serveGC},
	} {
		t.Setenv("GOGC", tt.gogc)
		p := newGCPolicy()
		p.Analysed() // no build: nothing to tighten
		if got := current(); got != tt.serve {
			t.Errorf("GOGC=%q: serving at %d, want %d", tt.gogc, got, tt.serve)
		}
		outer := p.Build()
		if got := current(); got != tt.build {
			t.Errorf("GOGC=%q: during a build at %d, want %d", tt.gogc, got, tt.build)
		}
		p.Analysed()
		if got := current(); got != tt.merge {
			t.Errorf("GOGC=%q: once a build is analysed at %d, want %d", tt.gogc, got, tt.merge)
		}
		inner := p.Build()
		outer()
		outer() // a second call changes nothing
		p.serving()
		if got := current(); got != tt.merge {
			t.Errorf("GOGC=%q: with a build still running at %d, want %d", tt.gogc, got, tt.merge)
		}
		inner()
		if got := current(); got != tt.serve {
			t.Errorf("GOGC=%q: after the builds at %d, want %d", tt.gogc, got, tt.serve)
		}
	}
}
