package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// reloads counts reloads; each one logs a "reload failed" line into a log
// file of its own choosing, as a server whose stderr goes there would.
type reloads struct {
	mu  sync.Mutex
	n   int
	log string
}

func (r *reloads) reload(context.Context) error {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
	if r.log != "" {
		f, err := os.OpenFile(r.log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "level=ERROR msg=\"reload failed; still serving the previous library\" at=%s\n", time.Now())
			f.Close()
		}
	}
	return fmt.Errorf("taxonomy.yaml:3: broken")
}

func (r *reloads) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// settle waits until the count has not changed for quiet, at most 10 s.
func (r *reloads) settle(quiet time.Duration) int {
	last, since := r.count(), time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if n := r.count(); n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > quiet {
			break
		}
	}
	return last
}

func startWatch(t *testing.T, dir, data string, r *reloads) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w := &watcher{dir: dir, data: data, reload: r.reload, log: slog.New(slog.NewTextHandler(io.Discard, nil)), debounce: 50 * time.Millisecond}
	fw, entries, ok := w.start()
	if !ok {
		t.Fatal("cannot watch")
	}
	go func() { w.loop(ctx, fw, entries); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// The server starts watching before its first load and serves once that
// load is done: a change written the moment watchLibrary returns (while
// the load runs, or as the server turns ready) must reload the library,
// not wait unnoticed for the next change.
func TestWatchIsInPlaceWhenWatchLibraryReturns(t *testing.T) {
	for i := range 5 {
		lib := t.TempDir()
		write(t, filepath.Join(lib, "incidents", "IL-0001-a.md"), "---\nid: IL-0001\n---\n")
		r := &reloads{}
		ctx, cancel := context.WithCancel(context.Background())
		watchLibrary(ctx, lib, "", r.reload, slog.New(slog.NewTextHandler(io.Discard, nil)))
		write(t, filepath.Join(lib, "incidents", fmt.Sprintf("IL-000%d-b.md", i+2)), "---\nid: IL-0002\n---\n")
		n := r.settle(time.Second)
		cancel()
		if n != 1 {
			t.Fatalf("try %d: %d reloads after a file written as watchLibrary returned, want 1", i, n)
		}
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The server's log in the folder above the library: each failing reload
// logs there, which must not set off another reload, even when the log is
// JSON (--log-format json) and so has a content file's extension. One
// change to the library is one reload; writes beside it are none.
func TestWatcherReloadsOncePerChange(t *testing.T) {
	parent := t.TempDir()
	lib := filepath.Join(parent, "library")
	write(t, filepath.Join(lib, "taxonomy.yaml"), "causes: []\n")
	write(t, filepath.Join(lib, "incidents", "IL-0001-a.md"), "---\nid: IL-0001\n---\n")
	r := &reloads{log: filepath.Join(parent, "casebook-log.json")}
	startWatch(t, lib, filepath.Join(parent, "data"), r)

	write(t, filepath.Join(lib, "incidents", "IL-0001-a.md"), "---\nid: IL-0001\ntitle: changed\n---\n")
	if n := r.settle(500 * time.Millisecond); n != 1 {
		t.Fatalf("%d reloads after one change with the log beside the library, want 1", n)
	}
	// Writes beside the library, in its data folder, hidden and backup
	// files: none of them is the library.
	for _, p := range []string{filepath.Join(parent, "notes.txt"), filepath.Join(parent, "README.md"),
		filepath.Join(parent, "compose.yaml"), filepath.Join(parent, "data", "casebook.db"), filepath.Join(parent, "data", "index", "meta.json"),
		filepath.Join(lib, ".IL-0001-a.md.swp"), filepath.Join(lib, "incidents", "IL-0001-a.md~"), filepath.Join(lib, "server.log")} {
		write(t, p, "x")
	}
	if n := r.settle(500 * time.Millisecond); n != 1 {
		t.Errorf("%d reloads after writes that are not the library, want still 1", n)
	}
	// A new folder with a file, then an edit inside it: the new folder is
	// watched too.
	write(t, filepath.Join(lib, "playbooks", "p.md"), "# p\n")
	if n := r.settle(500 * time.Millisecond); n != 2 {
		t.Fatalf("%d reloads after adding playbooks/p.md, want 2", n)
	}
	write(t, filepath.Join(lib, "playbooks", "p.md"), "# p, edited\n")
	if n := r.settle(500 * time.Millisecond); n != 3 {
		t.Errorf("%d reloads after editing playbooks/p.md, want 3", n)
	}
}

// git-sync publishes a checkout by swapping the symlink the library path
// goes through: one swap is one reload, and the new checkout is watched.
func TestWatcherFollowsSymlinkSwap(t *testing.T) {
	root := t.TempDir()
	for _, rev := range []string{"rev1", "rev2"} {
		write(t, filepath.Join(root, rev, "library", "taxonomy.yaml"), "causes: []\n# "+rev+"\n")
	}
	if err := os.Symlink(filepath.Join(root, "rev1"), filepath.Join(root, "current")); err != nil {
		t.Fatal(err)
	}
	r := &reloads{log: filepath.Join(root, "git-sync.log")}
	startWatch(t, filepath.Join(root, "current", "library"), "", r)

	// The swap as git-sync does it: a new link renamed over the old one.
	tmp := filepath.Join(root, "tmp-link")
	if err := os.Symlink(filepath.Join(root, "rev2"), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "current")); err != nil {
		t.Fatal(err)
	}
	if n := r.settle(500 * time.Millisecond); n != 1 {
		t.Fatalf("%d reloads after one symlink swap, want 1", n)
	}
	write(t, filepath.Join(root, "rev2", "library", "taxonomy.yaml"), "causes: []\n# rev2 edited\n")
	if n := r.settle(500 * time.Millisecond); n != 2 {
		t.Errorf("%d reloads after editing the new checkout, want 2", n)
	}
}

// A data folder inside the library (--data library/.cache or any other
// name) holds the server's own writes: the SQLite read model and the
// search index, whose files a reload rewrites. They never set off a
// reload, or each reload would start the next.
func TestWatcherIgnoresItsOwnDataFolder(t *testing.T) {
	lib := t.TempDir()
	write(t, filepath.Join(lib, "taxonomy.yaml"), "causes: []\n")
	data := filepath.Join(lib, "derived")
	write(t, filepath.Join(data, "casebook.db"), "x")
	r := &reloads{}
	startWatch(t, lib, data, r)
	for _, p := range []string{filepath.Join(data, "casebook.db"), filepath.Join(data, "index-1", "casebook-fields.bin"),
		filepath.Join(data, "index-1", "casebook-forward.bin")} {
		write(t, p, "y")
	}
	if n := r.settle(500 * time.Millisecond); n != 0 {
		t.Errorf("%d reloads after writes in the data folder, want 0", n)
	}
	write(t, filepath.Join(lib, "taxonomy.yaml"), "causes: []\n# edited\n")
	if n := r.settle(500 * time.Millisecond); n != 1 {
		t.Errorf("%d reloads after editing taxonomy.yaml, want 1", n)
	}
}
