package main

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"casebook/internal/content"
)

// watcher reloads the library when one of its files changes, and only
// then: it watches the library's folders, plus the parent of the library
// and of each symlink on its path (git-sync publishes a checkout by swapping
// a symlink) for events on that one entry. A log file or anything else
// beside the library, and the server's own data folder, never trigger a
// reload, so a failing reload that logs cannot feed itself. Events are
// debounced, because editors and git write several files in a burst.
type watcher struct {
	dir      string // the library folder as configured
	data     string // the server's data folder, ignored if inside dir
	reload   func(ctx context.Context) error
	log      *slog.Logger
	debounce time.Duration
}

// watchLibrary puts the watches of dir in place, then runs the watcher
// until ctx ends. The watches are in place when it returns, so a change
// made after that is seen: the server calls it before its first load, and
// a file written while that load runs reloads the library after it instead
// of waiting, unnoticed, for the next change.
func watchLibrary(ctx context.Context, dir, data string, reload func(context.Context) error, log *slog.Logger) {
	w := &watcher{dir: dir, data: data, reload: reload, log: log, debounce: 300 * time.Millisecond}
	fw, entries, ok := w.start()
	if ok {
		go w.loop(ctx, fw, entries)
	}
}

// start opens the watcher and watches the library's path and folders.
func (w *watcher) start() (*fsnotify.Watcher, map[string]bool, bool) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		w.log.Error("cannot watch the library; changes need a restart", "err", err)
		return nil, nil, false
	}
	entries := w.watchPath(fw)
	w.addTree(fw)
	return fw, entries, true
}

// loop reloads on the events of fw until ctx ends, then closes fw.
func (w *watcher) loop(ctx context.Context, fw *fsnotify.Watcher, entries map[string]bool) {
	defer fw.Close()
	var timer *time.Timer
	fire := make(chan struct{}, 1)
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			if !w.relevant(ev, entries) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				w.addTree(fw) // a new folder needs its own watch
			}
			if timer != nil {
				timer.Stop()
			}
			timer = time.AfterFunc(w.debounce, func() {
				select {
				case fire <- struct{}{}:
				default:
				}
			})
		case err, ok := <-fw.Errors:
			if !ok {
				return
			}
			w.log.Warn("library watch error", "err", err)
		case <-fire:
			w.addTree(fw) // after a symlink swap the folders are new ones
			if err := w.reload(ctx); err != nil {
				w.log.Error("reload failed; still serving the previous library", "err", err)
			}
		}
	}
}

// watchPath watches the parent of the library folder and of every symlink
// on its path, and returns the entries whose events matter there: the
// library folder itself and those symlinks.
func (w *watcher) watchPath(fw *fsnotify.Watcher) map[string]bool {
	entries := map[string]bool{}
	p := filepath.Clean(w.dir)
	abs, err := filepath.Abs(p)
	if err == nil {
		p = abs
	}
	for first := true; p != filepath.Dir(p); p, first = filepath.Dir(p), false {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if first || fi.Mode()&fs.ModeSymlink != 0 {
			entries[p] = true
			_ = fw.Add(filepath.Dir(p))
		}
	}
	return entries
}

// addTree watches every folder of the library (through symlinks).
func (w *watcher) addTree(fw *fsnotify.Watcher) {
	root, err := filepath.EvalSymlinks(w.dir)
	if err != nil {
		return
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != root && (strings.HasPrefix(d.Name(), ".") || w.isData(p)) {
			return filepath.SkipDir
		}
		_ = fw.Add(p)
		return nil
	})
}

// relevant reports whether an event can change the library: a path entry
// being replaced (entries), or a content file or folder inside it. Hidden
// and backup files, files of other kinds (logs) and the data folder are
// not the library.
func (w *watcher) relevant(ev fsnotify.Event, entries map[string]bool) bool {
	if entries[filepath.Clean(ev.Name)] {
		return true
	}
	dir := filepath.Dir(ev.Name)
	for e := range entries {
		if dir == filepath.Dir(e) {
			return false // something else beside the library or a symlink
		}
	}
	name := filepath.Base(ev.Name)
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") || w.isData(ev.Name) {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".yaml", ".yml", ".json":
		return true
	case "":
		// A folder created, removed or renamed (or a file without an
		// extension, which the library does not have).
		return !ev.Has(fsnotify.Write)
	}
	return false
}

// isData reports whether p is in the server's data folder.
func (w *watcher) isData(p string) bool {
	if w.data == "" {
		return false
	}
	data, err := filepath.Abs(w.data)
	if err != nil {
		return false
	}
	p, err = filepath.Abs(p)
	return err == nil && (p == data || strings.HasPrefix(p, data+string(filepath.Separator)))
}

// reloadWith is the watcher's reload: a load of the library, whose failure
// the loader records for /readyz, /api/problems, the metric and the footer.
func reloadWith(l *content.Loader) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := l.Load(ctx)
		return err
	}
}

// watchLayers runs a watcher for every layer that is a folder on disk, each
// on its own: a change in a team's layer reloads the library, and the
// loader parses again only the layers that changed (library.Stack), while
// the others keep what they had. Every watch is in place when it returns;
// it is called before the first load (see watchLibrary).
func watchLayers(ctx context.Context, data string, loader *content.Loader, log *slog.Logger) {
	for _, l := range loader.Layers() {
		if l.Dir != "" {
			watchLibrary(ctx, l.Dir, data, reloadWith(loader), log.With("layer", l.Root))
		}
	}
}
