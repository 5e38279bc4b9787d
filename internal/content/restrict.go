package content

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"casebook/internal/library"
	"casebook/internal/store"
)

// A restricted layer (a team's postmortems that only some people may read)
// is kept out of the library everyone else reads by construction, not by a
// check at every door: beside each library it loads, a loader with
// restricted layers builds a second Content from the same stack without
// them — its own store, search index, graph, triage catalogue and gap
// checks — and publishes both in one atomic swap. A request reads one of
// the two, chosen once from its identity (Content.For), so every page, API
// call, feed, export and MCP tool answers from the library that identity
// may see, and each view's result caches are its own.
//
// The second view costs a second store and index of the public library
// (the unrestricted layers); it is built only when a layer is restricted,
// it reuses the full stack's parse of the layers the two share, and it is
// rebuilt only when one of its own layers changes: a change to a restricted
// layer rebuilds the full view alone.

// viewDir is the folder, under the data folder, of the unrestricted view's
// read models; each view prunes only its own folder.
const viewDir = "unrestricted"

// Restrict makes the loader build, beside each library it loads, the
// library without the layers named: the one a reader not allowed to see
// them gets. Every name must be a layer of the stack, and every layer's
// layer.yaml must be readable, or the loader could not tell which layers to
// leave out: the error says which. Call it before the first Load.
func (l *Loader) Restrict(names []string) error {
	if len(names) == 0 {
		return nil
	}
	// The layers are chosen once, here, by folder: a restricted layer whose
	// layer.yaml later breaks or changes its name stays out of the view.
	var found, all []string
	out := map[int]bool{}
	for i, ly := range l.stack.Layers() {
		info, _, err := library.ReadLayerInfo(ly.FS)
		if err != nil {
			return fmt.Errorf("content: cannot tell whether %s is a restricted layer: %w", ly.Show(library.LayerFile), err)
		}
		all = append(all, info.Name)
		if slices.Contains(names, info.Name) {
			found = append(found, info.Name)
			out[i] = true
		}
	}
	for _, n := range names {
		if n == library.PublicLayer {
			return fmt.Errorf("content: the public library cannot be restricted")
		}
		if !slices.Contains(found, n) {
			return fmt.Errorf("content: no layer is named %q (the layers are: %s)", n, strings.Join(all, ", "))
		}
	}
	l.restricted = names
	l.view = NewStackLoader(l.stack.Without(func(i int, _ library.Layer) bool { return out[i] }),
		filepath.Join(l.dataDir, viewDir), l.log)
	return nil
}

// Restricted names the layers only allowed readers see; none unless
// Restrict was called.
func (l *Loader) Restricted() []string { return l.restricted }

// For returns the library as a reader sees it: all of it when they may see
// the restricted layers or none is restricted, else the library without
// them. Every door (pages, API, feeds, export, MCP) takes its Content from
// here.
func (c *Content) For(seesRestricted bool) *Content {
	if c == nil || seesRestricted || c.unrestricted == nil {
		return c
	}
	return c.unrestricted
}

// CurrentFor is Current as a reader sees it (Content.For).
func (l *Loader) CurrentFor(seesRestricted bool) *Content {
	return l.Current().For(seesRestricted)
}

// FailureFor is Failure as a reader sees it: when they may not see the
// restricted layers, only the problems of the layers their library has.
func (l *Loader) FailureFor(seesRestricted bool) *LoadFailure {
	f, cur := l.Failure(), l.Current()
	if f == nil || seesRestricted || cur == nil || cur.unrestricted == nil {
		return f
	}
	visible := cur.unrestricted.LayerNames()
	cp := *f
	cp.Problems = nil
	for _, p := range f.Problems {
		if slices.Contains(visible, p.Layer) {
			cp.Problems = append(cp.Problems, p)
		}
	}
	return &cp
}

// shareLibrary lets the whole library and the view without the restricted
// layers hold their common incidents and playbooks once: the whole
// library, just parsed, is handed to the view's loader, whose library then
// points at its entries. Decoded from snapshots on a warm start, the two
// would otherwise each hold every public incident (about 100 MiB of heap
// at 10,000 incidents).
func (l *Loader) shareLibrary(lib *library.Library) {
	if l.view != nil {
		l.view.share = lib
	}
	if l.share != nil {
		lib.Share(l.share)
	}
}

// withView adds to c, just built, the library without the restricted
// layers: the view of the previous load when none of its layers changed,
// else built now. A view that cannot be built fails the whole load, so the
// restricted layers are never published without it.
func (l *Loader) withView(ctx context.Context, c *Content) error {
	if l.view == nil {
		return nil
	}
	v := l.view
	v.NoSearch, v.Search = l.NoSearch, l.Search
	pub, err := v.load(ctx)
	v.share = nil
	if err != nil {
		return fmt.Errorf("content: the library without the restricted layers: %w", err)
	}
	if pub != v.cur.Load() {
		l.log.Info("library without the restricted layers ready", "restricted", strings.Join(l.restricted, ","),
			"incidents", pub.Incidents, "playbooks", pub.Playbooks, "warm", pub.Warm)
	}
	c.unrestricted = pub
	return nil
}

// publishView records the view just published, so the next load reuses it
// when its layers have not changed.
func (l *Loader) publishView(c *Content) {
	if l.view != nil && c != nil {
		l.view.cur.Store(c.unrestricted)
	}
}

// retireView closes the view of a retired Content unless the published
// Content or another retiring one still reads it. The caller holds l.mu.
func (l *Loader) retireView(old *Content) {
	v := old.unrestricted
	if v == nil {
		return
	}
	if cur := l.cur.Load(); cur != nil && cur.unrestricted == v {
		return
	}
	for r := range l.retiring {
		if r != old && r.unrestricted == v {
			return
		}
	}
	v.close()
}

// pruneView removes the view's read models that no Content reads. The
// caller holds l.mu.
func (l *Loader) pruneView() {
	cur := l.cur.Load()
	if l.view == nil && cur != nil && cur.unrestricted == nil && l.dataDir != "" && filepath.Base(l.dataDir) != viewDir {
		// No layer is restricted (any more): the read models of the view
		// a previous run built are of no use, and at 10,000 incidents
		// they are a whole second store and index on disk.
		if err := os.RemoveAll(filepath.Join(l.dataDir, viewDir)); err != nil {
			l.log.Warn("could not remove the read models of the view without restricted layers", "err", err)
		}
		return
	}
	if l.view == nil || cur == nil || cur.unrestricted == nil {
		return
	}
	keep := []string{cur.unrestricted.Hash}
	for r := range l.retiring {
		if r.unrestricted != nil {
			keep = append(keep, r.unrestricted.Hash)
		}
	}
	store.Prune(l.view.dataDir, keep...)
	pruneSnapshots(l.view.dataDir, keep)
	if ix := cur.unrestricted.Search; ix != nil {
		if err := ix.RemoveStale(); err != nil {
			l.log.Warn("could not remove old search indexes", "err", err)
		}
	}
}
