package library

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

// Stack is the layers of a library, bottom first, and what it last parsed
// of each. Loading merges them:
//
//   - incidents and playbooks of every layer; a playbook with the id of a
//     lower layer's replaces it (and says so: Playbook.Overrides);
//   - one taxonomy: a layer adds terms and aliases, never redefines a term;
//   - incident ids carry their layer's prefix, so they never collide.
//
// Each layer is parsed on its own and its result kept: a reload after a
// change in one team layer re-parses that layer (and those above it, which
// may use its terms), not the public library. A layer that becomes unusable
// (a malformed layer.yaml or taxonomy.yaml) keeps its previous version
// serving, or is left out when it has none; the others serve either way.
type Stack struct {
	layers []Layer
	mu     sync.Mutex
	memo   []*layerResult
	// parent is the stack this one was cut from (Without), whose parsed
	// layers it reuses.
	parent *Stack
	// hashCache is the folder of the hash caches of on-disk layers
	// (hashcache.go); empty: none.
	hashCache string
}

// NewStack returns the stack of layers, bottom first.
func NewStack(layers ...Layer) *Stack {
	return &Stack{layers: layers, memo: make([]*layerResult, len(layers))}
}

// Layers returns the stack's layers, bottom first.
func (s *Stack) Layers() []Layer { return s.layers }

// layerResult is one layer parsed against the layers below it.
type layerResult struct {
	key   string // the chain key of this layer and those below
	below string // the chain key of the layers below, which the parse used
	layer Layer
	info  LayerInfo
	tax   *Taxonomy // the taxonomy of the layers up to this one
	lib   *Library  // this layer's own entries
	// problems are the layer's own, already shown with its root.
	problems []Problem
}

// Files is one read of every file of a stack: its hash, and the bytes that
// were hashed, which LoadFiles parses instead of reading the files again.
// A cold load reads each file once: hashing it to look for read models
// built for it, then parsing it when there are none.
type Files struct {
	Hash   string
	hashes []string  // each layer's
	read   []*hashed // each layer's files as read; nil once loaded
}

// Release lets go of the files' bytes; the hash stays, and a LoadFiles of
// f reads the files from disk.
func (f *Files) Release() { clear(f.read) }

// Read reads every file of the stack for its hash. A stack of one layer
// without a root has that layer's hash, so a library served on its own
// keeps the hash (and the persisted read models) it always had. With keep,
// the Files hold every file's bytes for LoadFiles (release them when no
// load follows); without, they hold the hashes only and LoadFiles reads
// the files again.
func (s *Stack) Read(keep bool) (*Files, error) {
	f := &Files{hashes: make([]string, len(s.layers)), read: make([]*hashed, len(s.layers))}
	for i, l := range s.layers {
		var prior *layerStats
		cached := s.hashCache != "" && l.Dir != ""
		if cached {
			prior = readHashCache(s.hashCache, l.Dir)
		}
		h, kept, stats, err := hashFiles(l.FS, keep, cached, prior)
		if err != nil {
			return nil, err
		}
		if stats != nil {
			writeHashCache(s.hashCache, &layerStats{Version: hashCacheVersion, Dir: l.Dir, Hash: h, Files: stats})
		}
		f.hashes[i], f.read[i] = h, kept
	}
	f.Hash = s.combine(f.hashes)
	return f, nil
}

func (s *Stack) combine(hashes []string) string {
	if len(s.layers) == 1 && s.layers[0].Root == "" {
		return hashes[0]
	}
	key := ""
	for i, l := range s.layers {
		key = chainKey(key, l, hashes[i])
	}
	return key
}

// chainKey is the key of a layer on top of the layers below: it changes
// when any of them changes, or when the layer's place in the stack does.
func chainKey(below string, l Layer, hash string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%t\x00%s", below, l.Root, l.Embedded, hash)
	return hex.EncodeToString(h.Sum(nil))
}

// Taxonomy parses only the taxonomies of the layers: what a warm start,
// which restores the entries from a snapshot, needs beside them.
func (s *Stack) Taxonomy() (*Taxonomy, error) {
	var tax *Taxonomy
	for i, l := range s.layers {
		src, err := fs.ReadFile(l.FS, "taxonomy.yaml")
		if errors.Is(err, fs.ErrNotExist) && i > 0 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("library: read %s: %w", l.Show("taxonomy.yaml"), err)
		}
		info, _, _ := ReadLayerInfo(l.FS)
		next, _, err := parseTaxonomy(tax, l.Show("taxonomy.yaml"), info.Name, src)
		if err != nil {
			if i == 0 {
				return nil, fmt.Errorf("library: %w", err)
			}
			continue // Load leaves such a layer out too
		}
		tax = next
	}
	return tax, nil
}

// Load parses the layers that changed since the last Load, reuses the
// others, and merges them. The error is non-nil only when the bottom layer
// is unusable or nothing valid is left.
func (s *Stack) Load() (*Library, []Problem, error) { return s.LoadFiles(nil) }

// LoadFiles is Load of the files f read (from Read on this stack), or of
// the files on disk when f is nil. It takes f's bytes: f is spent after.
func (s *Stack) LoadFiles(f *Files) (*Library, []Problem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f != nil {
		defer f.Release()
	}
	if f != nil && len(f.read) != len(s.layers) {
		return nil, nil, errors.New("library: files read from another stack")
	}
	var problems []Problem
	var used []*layerResult
	var tax *Taxonomy
	below := ""
	hashes := make([]string, len(s.layers))
	for i, l := range s.layers {
		var src fs.FS = l.FS
		if f != nil {
			hashes[i] = f.hashes[i]
			if f.read[i] != nil {
				src = f.read[i]
			}
		} else {
			h, err := Hash(l.FS)
			if err != nil {
				if i == 0 {
					return nil, problems, err
				}
				problems = append(problems, Problem{Path: l.Show(LayerFile), Msg: fmt.Sprintf("layer left out: %v", err)})
				continue
			}
			hashes[i] = h
		}
		h := hashes[i]
		key := chainKey(below, l, h)
		r := s.memo[i]
		if (r == nil || r.key != key) && s.parent != nil {
			if pr := s.parent.parsed(key); pr != nil {
				r = pr
				s.memo[i] = r
			}
		}
		if r == nil || r.key != key {
			fresh, err := parseLayer(l, src, i == 0, tax)
			fresh.key, fresh.below = key, below
			problems = append(problems, fresh.problems...)
			if err != nil {
				if i == 0 {
					SortProblems(problems)
					return nil, problems, err
				}
				at := Problem{Path: l.Show(LayerFile), Layer: fresh.info.Name}
				if r != nil && r.below == below {
					at.Msg = fmt.Sprintf("this layer is unusable (%v); its previous version keeps serving until it is fixed", err)
					at.Layer = r.info.Name
					problems = append(problems, at)
					tax, below = r.tax, r.key
					used = append(used, r)
				} else {
					at.Msg = fmt.Sprintf("this layer is unusable and left out (%v); the other layers serve", err)
					problems = append(problems, at)
				}
				continue
			}
			r = fresh
			s.memo[i] = r
		} else {
			problems = append(problems, r.problems...)
		}
		tax, below = r.tax, r.key
		used = append(used, r)
	}
	lib, mp := merge(used)
	problems = append(problems, mp...)
	lib.Hash = s.combine(hashes)
	SortProblems(problems)
	if len(lib.Incidents) == 0 && len(lib.Playbooks) == 0 {
		return lib, problems, ErrNothingValid
	}
	return lib, problems, nil
}

// parseLayer reads one layer on top of the taxonomy below (nil for the
// bottom layer). The result is never nil; the error says the layer cannot
// be used at all, and its problems say why. src is l's folder as the parse
// reads it (see hashed); the result keeps l.FS, to read a file again for
// the line of a later problem.
func parseLayer(l Layer, src fs.FS, bottom bool, below *Taxonomy) (*layerResult, error) {
	r := &layerResult{layer: l}
	info, ps, err := ReadLayerInfo(l.FS)
	if l.Root == "" && !bottom {
		l.Root = info.Name // problems of a team layer always say which layer
		r.layer = l
	}
	r.info = info
	r.problems = qualify(l, info.Name, ps)
	switch {
	case errors.Is(err, ErrNoLayer):
		r.problems = append(r.problems, Problem{Path: l.Show("."), Msg: "not a library folder: a public library holds taxonomy.yaml, a team's layer holds layer.yaml (name, prefix)"})
		return r, err
	case err != nil:
		return r, err
	case info.Public() && !bottom:
		r.problems = append(r.problems, Problem{Path: l.Show("."), Msg: "this folder has no layer.yaml, so it would be a second public library: give the team's layer a layer.yaml with its name and incident-id prefix"})
		return r, errors.New("library: a public library can only be the bottom layer")
	}
	taxSrc, err := fs.ReadFile(src, "taxonomy.yaml")
	tax := below
	switch {
	case err == nil:
		var tp []Problem
		tax, tp, err = parseTaxonomy(below, l.Show("taxonomy.yaml"), info.Name, taxSrc)
		for i := range tp {
			tp[i].Layer = info.Name
		}
		r.problems = append(r.problems, tp...)
		if err != nil {
			return r, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return r, fmt.Errorf("library: read %s: %w", l.Show("taxonomy.yaml"), err)
	case below == nil:
		r.problems = append(r.problems, Problem{Path: l.Show("taxonomy.yaml"), Layer: info.Name, Msg: "missing: the bottom layer of a library defines the taxonomy"})
		return r, errors.New("library: the bottom layer has no taxonomy.yaml")
	}
	r.tax = tax
	r.problems = append(r.problems, qualify(l, info.Name, refusedDirs(l.FS))...)
	lib, lp := loadEntries(l, src, info, tax)
	r.lib = lib
	r.problems = append(r.problems, qualify(l, info.Name, lp)...)
	return r, nil
}

// qualify shows a layer's problems with its root and names the layer.
func qualify(l Layer, name string, ps []Problem) []Problem {
	for i := range ps {
		ps[i].Path = l.Show(ps[i].Path)
		ps[i].Layer = name
	}
	return ps
}

// merge stacks the parsed layers into one library. The parsed entries are
// shared with the memo, so merge changes copies only.
func merge(used []*layerResult) (*Library, []Problem) {
	lib := &Library{incByID: map[string]*Incident{}, pbByID: map[string]*Playbook{}, layers: map[string]Layer{}}
	var problems []Problem
	byName := map[string]*layerResult{}
	byPrefix := map[string]*layerResult{}
	for _, r := range used {
		lib.Taxonomy = r.tax
		at := Problem{Path: r.layer.Show(LayerFile), Layer: r.info.Name}
		if prev := byName[r.info.Name]; prev != nil {
			at.Line = fieldLine(readOrNil(r.layer.FS, LayerFile), "name")
			at.Msg = fmt.Sprintf("layer name %q is also the name of %s", r.info.Name, prev.layer.Show(LayerFile))
			problems = append(problems, at)
		}
		if prev := byPrefix[r.info.Prefix]; prev != nil && !r.info.Public() {
			at.Line = fieldLine(readOrNil(r.layer.FS, LayerFile), "prefix")
			at.Msg = fmt.Sprintf("prefix %s is also the prefix of %s: two layers with one prefix would give two incidents one id", r.info.Prefix, prev.layer.Show(LayerFile))
			problems = append(problems, at)
		}
		if byName[r.info.Name] == nil {
			byName[r.info.Name] = r
			lib.layers[r.info.Name] = r.layer
		}
		if byPrefix[r.info.Prefix] == nil {
			byPrefix[r.info.Prefix] = r
		}
		lib.Layers = append(lib.Layers, r.info)
	}
	show := func(layer, p string) string {
		if r := byName[layer]; r != nil {
			return r.layer.Show(p)
		}
		return p
	}
	for _, r := range used {
		for _, pb := range r.lib.Playbooks {
			cp := *pb
			if prev := lib.pbByID[pb.ID]; prev != nil {
				cp.Overrides = &Override{Layer: prev.Layer, Path: prev.Path}
				if lost := missingAnchors(prev, pb); len(lost) > 0 {
					problems = append(problems, Problem{Path: r.layer.Show(pb.Path), Line: 1, Layer: r.info.Name,
						Msg: fmt.Sprintf("replaces %s but lacks its headings #%s: triage outcomes, checks and links point at them; keep those headings (or give yours their {#anchor})",
							show(prev.Layer, prev.Path), strings.Join(lost, ", #"))})
				}
				for i, x := range lib.Playbooks {
					if x == prev {
						lib.Playbooks[i] = &cp
					}
				}
			} else {
				lib.Playbooks = append(lib.Playbooks, &cp)
			}
			lib.pbByID[pb.ID] = &cp
		}
	}
	sort.Slice(lib.Playbooks, func(i, j int) bool { return lib.Playbooks[i].ID < lib.Playbooks[j].ID })
	for _, r := range used {
		for _, in := range r.lib.Incidents {
			src := func() []byte { return readOrNil(r.layer.FS, in.Path) }
			if prev := lib.incByID[in.ID]; prev != nil {
				problems = append(problems, Problem{Path: r.layer.Show(in.Path), Line: idLine(src()), Layer: r.info.Name,
					Msg: fmt.Sprintf("duplicate incident id %s (also in %s)", in.ID, show(prev.Layer, prev.Path))})
				continue
			}
			cp := *in
			cp.Playbooks = nil
			for _, id := range in.Playbooks {
				if lib.pbByID[id] == nil {
					problems = append(problems, Problem{Path: r.layer.Show(in.Path), Line: fieldLine(src(), "playbooks"), Layer: r.info.Name,
						Msg: fmt.Sprintf("links to playbook %q, which does not exist%s", id, didYouMean(id, sortedKeys(lib.pbByID)))})
					continue
				}
				cp.Playbooks = append(cp.Playbooks, id)
			}
			lib.incByID[in.ID] = &cp
			lib.Incidents = append(lib.Incidents, &cp)
		}
	}
	SortNewestFirst(lib.Incidents)
	return lib, problems
}

// missingAnchors lists the heading anchors of a replaced playbook that its
// replacement does not have.
func missingAnchors(old, repl *Playbook) []string {
	have := map[string]bool{}
	for _, a := range repl.Anchors() {
		have[a] = true
	}
	var out []string
	for _, a := range old.Anchors() {
		if !have[a] {
			out = append(out, a)
		}
	}
	return out
}

// LayerOf returns the layer an entry of the library comes from, by name.
func (l *Library) LayerOf(name string) (Layer, bool) {
	layer, ok := l.layers[name]
	return layer, ok
}

// Show returns the path of a file of the named layer as problems print it.
func (l *Library) Show(layer, p string) string {
	if ly, ok := l.layers[layer]; ok {
		return ly.Show(p)
	}
	return p
}

// Attribute names the layer of each problem that does not say it yet (the
// triage and check loaders know paths, not layers), by the layer root its
// path starts with; the rest belong to the bottom layer.
func (s *Stack) Attribute(problems []Problem) {
	roots, bottom := s.roots()
	for i := range problems {
		if problems[i].Layer != "" {
			continue
		}
		best := -1
		for j, r := range roots {
			if strings.HasPrefix(problems[i].Path, r.prefix) && (best < 0 || len(r.prefix) > len(roots[best].prefix)) {
				best = j
			}
		}
		if best >= 0 {
			problems[i].Layer = roots[best].name
		} else {
			problems[i].Layer = bottom
		}
	}
}

// layerRoot is the prefix the paths of a layer's problems start with.
type layerRoot struct{ prefix, name string }

// roots are the layers' roots as problems show them, and the bottom
// layer's name.
func (s *Stack) roots() ([]layerRoot, string) {
	var roots []layerRoot
	bottom := PublicLayer
	for i, l := range s.layers {
		name := PublicLayer
		if info, _, err := ReadLayerInfo(l.FS); err == nil && info.Name != "" {
			name = info.Name
		}
		if i == 0 {
			bottom = name
		}
		r := l.Root
		if r == "" && i > 0 {
			r = name
		}
		if r != "" {
			roots = append(roots, layerRoot{strings.TrimSuffix(r, "/") + "/", name})
		}
	}
	return roots, bottom
}

// Roots maps each layer's name to the prefix its problems' paths start
// with (none for a layer whose paths are its own), so a reader who is not
// the operator is shown paths inside the layer, not the server's folders.
func (s *Stack) Roots() map[string]string {
	roots, _ := s.roots()
	out := make(map[string]string, len(roots))
	for _, r := range roots {
		out[r.name] = r.prefix
	}
	return out
}

// InLayer is the path of a problem relative to its layer's folder, given
// the roots of Stack.Roots.
func (p Problem) InLayer(roots map[string]string) string {
	if r := roots[p.Layer]; r != "" {
		return strings.TrimPrefix(p.Path, r)
	}
	return p.Path
}

// Without returns the stack of s's layers (by place, bottom first) for
// which leave is false: the library as a reader who may not see the
// left-out layers finds it. It parses nothing of its own that s has parsed already — a layer whose
// content and layers below are the same in both stacks (the public library
// under a team's layer) is shared — so building that second view costs a
// merge, not a second parse of the public library.
func (s *Stack) Without(leave func(i int, l Layer) bool) *Stack {
	var kept []Layer
	for i, l := range s.layers {
		if !leave(i, l) {
			kept = append(kept, l)
		}
	}
	sub := NewStack(kept...)
	sub.parent, sub.hashCache = s, s.hashCache
	return sub
}

// parsed returns the parse of s whose chain key is key, if s holds one.
func (s *Stack) parsed(key string) *layerResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.memo {
		if r != nil && r.key == key {
			return r
		}
	}
	return nil
}
