package content

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"casebook/internal/store"
)

// TestReloadUnderConcurrentReaders swaps between two versions of a library
// while readers query the published Content. Run with -race. A reader must
// never see an error, and what it reads must be one whole library: the
// total of the list equals the Content's own count, 4 or 5.
func TestReloadUnderConcurrentReaders(t *testing.T) {
	ctx := context.Background()
	lib := libDir(t)
	l := newLoader(t, lib, t.TempDir())
	if _, err := l.Load(ctx); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(lib, "incidents/IL-9005-added-while-serving.md")

	const readers, reloads = 8, 12
	var (
		stop    atomic.Bool
		reads   atomic.Int64
		seen    sync.Map // totals observed
		wg      sync.WaitGroup
		errOnce sync.Once
		readErr error
	)
	fail := func(err error) { errOnce.Do(func() { readErr = err }) }
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				c := l.Current()
				items, total, err := c.Store.ListIncidents(ctx, store.Filter{}, store.SortNewest, 1, 50)
				if err != nil {
					fail(err)
					return
				}
				if total != c.Incidents || len(items) != total || (total != 4 && total != 5) {
					fail(&halfBuilt{total: total, items: len(items), count: c.Incidents})
					return
				}
				if _, err := c.Store.FacetCounts(ctx, store.Filter{}, c.Taxonomy); err != nil {
					fail(err)
					return
				}
				seen.Store(total, true)
				reads.Add(1)
			}
		}()
	}

	for i := range reloads {
		if i%2 == 0 {
			addIncident(t, lib)
		} else if err := os.Remove(extra); err != nil {
			t.Fatal(err)
		}
		c, err := l.Load(ctx)
		if err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("reload %d: %v", i, err)
		}
		if want := 5 - i%2; c.Incidents != want {
			t.Errorf("reload %d: %d incidents, want %d", i, c.Incidents, want)
		}
	}
	stop.Store(true)
	wg.Wait()

	if readErr != nil {
		t.Fatalf("a reader saw: %v", readErr)
	}
	if reads.Load() == 0 {
		t.Fatal("no reads happened")
	}
	for _, n := range []int{4, 5} {
		if _, ok := seen.Load(n); !ok {
			t.Errorf("readers never saw the library with %d incidents (%d reads)", n, reads.Load())
		}
	}
}

type halfBuilt struct{ total, items, count int }

func (h *halfBuilt) Error() string {
	return "half-built library: list total " + itoa(h.total) + ", page " + itoa(h.items) + ", Content count " + itoa(h.count)
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
