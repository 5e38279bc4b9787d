package main

import (
	"context"
	"io/fs"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"casebook/internal/content"
)

// watchLibrary reloads the library when a file under dir changes. Events are
// debounced because editors and git write several files in a burst.
func watchLibrary(ctx context.Context, dir string, loader *content.Loader, log *slog.Logger) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		log.Error("cannot watch library; changes need a restart", "err", err)
		return
	}
	defer w.Close()
	addAll := func() {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = w.Add(p)
			}
			return nil
		})
	}
	addAll()
	// git-sync publishes a new checkout by swapping a symlink above the
	// library folder; watching the parents sees the swap.
	for p := filepath.Dir(filepath.Clean(dir)); p != filepath.Dir(p); p = filepath.Dir(p) {
		if err := w.Add(p); err == nil {
			break
		}
	}
	var timer *time.Timer
	fire := make(chan struct{}, 1)
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) {
				addAll() // new folders need their own watch
			}
			if timer != nil {
				timer.Stop()
			}
			timer = time.AfterFunc(300*time.Millisecond, func() {
				select {
				case fire <- struct{}{}:
				default:
				}
			})
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			log.Warn("library watch error", "err", err)
		case <-fire:
			addAll() // after a symlink swap the folders are new ones
			if _, err := loader.Load(ctx); err != nil {
				log.Error("reload failed; still serving the previous library", "err", err)
			}
		}
	}
}
