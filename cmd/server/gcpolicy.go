package main

import (
	"os"
	"runtime/debug"
	"strconv"
	"sync"
)

// The collector's targets, as shares of the configured one (GOGC, 100
// when unset; GOGC=off stays off).
//
// buildGC holds during a cold load's build steps, where the live heap is
// large and short-lived garbage plentiful: a lower target keeps the peak
// down at little cost in time.
//
// analysedGC holds from the end of the index's analysis to the end of the
// build, while the index's files and the store are written: the store's
// pages come on top of what the build holds, and a still lower target
// lowers the peak for the same load time.
//
// serveGC holds otherwise. A served library's heap is mostly long-lived
// (the parsed library, the graph, the search tables), and requests'
// garbage is short-lived, so the default target mostly doubles data that
// stays. docs/performance.md has the measurements behind the three shares.
const (
	buildGC    = 70
	analysedGC = 40
	serveGC    = 65
)

// gcPolicy is the loaders' memory policy (content.MemoryPolicy): the
// collector's target during a cold build, once its index is analysed and
// otherwise, and
// freed memory handed back after a build. depth counts the builds running
// with the tighter target, so that overlapping loads (a process may hold
// more than one loader) return to the serving target only when the last
// of them ends.
type gcPolicy struct {
	mu    sync.Mutex
	depth int
}

// newGCPolicy sets the serving target and returns the policy.
func newGCPolicy() *gcPolicy {
	p := &gcPolicy{}
	p.serving()
	return p
}

// Release returns freed memory to the system.
func (p *gcPolicy) Release() { debug.FreeOSMemory() }

// configuredGC is the target GOGC asks for, read as the runtime reads it:
// off is -1, a number is itself, anything else is the default 100.
func configuredGC() int {
	v := os.Getenv("GOGC")
	if v == "off" {
		return -1
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return n
	}
	return 100
}

// gcShare is share % of the configured target; off stays off.
func gcShare(share int) int {
	c := configuredGC()
	if c < 0 {
		return -1
	}
	return max(1, c*share/100)
}

// serving sets the serving target unless a build is running.
func (p *gcPolicy) serving() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.depth == 0 {
		debug.SetGCPercent(gcShare(serveGC))
	}
}

// Build sets the build target and returns what sets the serving one back
// once the last build ends.
func (p *gcPolicy) Build() (done func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.depth == 0 {
		debug.SetGCPercent(gcShare(buildGC))
	}
	p.depth++
	return sync.OnceFunc(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.depth--; p.depth == 0 {
			debug.SetGCPercent(gcShare(serveGC))
		}
	})
}

// Analysed sets the target of a build's last steps, while a build holds.
func (p *gcPolicy) Analysed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.depth > 0 {
		debug.SetGCPercent(gcShare(analysedGC))
	}
}
