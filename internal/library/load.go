package library

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"syscall"
)

// Library is the validated content: what survives validation. Files with
// fatal problems are left out; their problems are reported beside. A library
// stacked from several layers holds the entries of all of them (see Stack).
type Library struct {
	Taxonomy  *Taxonomy
	Incidents []*Incident // newest first
	Playbooks []*Playbook // by id
	Hash      string      // content hash of every file in the library
	// Layers are the layers the entries come from, bottom (public) first.
	Layers  []LayerInfo
	incByID map[string]*Incident
	pbByID  map[string]*Playbook
	// layers finds a layer by name, to read its files again for the line
	// of a problem found after loading (nil for a decoded snapshot).
	layers map[string]Layer
}

// Incident looks up an incident by id.
func (l *Library) Incident(id string) (*Incident, bool) { in, ok := l.incByID[id]; return in, ok }

// Playbook looks up a playbook by id.
func (l *Library) Playbook(id string) (*Playbook, bool) { pb, ok := l.pbByID[id]; return pb, ok }

// PlaybookAnchors maps each playbook id to its heading anchors (for triage lint).
func (l *Library) PlaybookAnchors() map[string][]string {
	out := make(map[string][]string, len(l.Playbooks))
	for _, pb := range l.Playbooks {
		out[pb.ID] = pb.Anchors()
	}
	return out
}

// ErrNothingValid is returned when no incident or playbook survived validation.
var ErrNothingValid = errors.New("library: no valid content")

// Load parses and validates a library rooted at fsys (the folder holding
// taxonomy.yaml). It returns the valid content together with every problem
// found; the error is non-nil only when no usable library is left.
func Load(fsys fs.FS) (*Library, []Problem, error) {
	return NewStack(Layer{FS: fsys}).Load()
}

// loadEntries parses the playbooks and incidents of one layer against tax
// (the taxonomy of the layers up to this one) and pairs their Korean
// twins. Links to playbooks are resolved later, across layers. Problems
// are relative to the layer's root.
// fsys is l's folder as the parse reads it (see hashed).
func loadEntries(l Layer, fsys fs.FS, info LayerInfo, tax *Taxonomy) (*Library, []Problem) {
	lib := &Library{Taxonomy: tax, incByID: map[string]*Incident{}, pbByID: map[string]*Playbook{}}
	var problems []Problem
	pbFiles, _ := fs.Glob(fsys, "playbooks/*.md")
	pbFiles, pbKo := splitKorean(pbFiles)
	parsePB := func(p string, src []byte) (*Playbook, []Problem) { return parsePlaybook(p, src, tax) }
	for _, r := range parseFiles(fsys, pbFiles, parsePB) {
		p, pb := r.path, r.v
		if r.err != nil {
			problems = append(problems, Problem{Path: p, Msg: ReadReason(r.err)})
			continue
		}
		problems = append(problems, r.problems...)
		if pb == nil {
			continue
		}
		if prev := lib.pbByID[pb.ID]; prev != nil {
			problems = append(problems, Problem{Path: p, Line: 2, Msg: fmt.Sprintf("duplicate playbook id %q (also in %s)", pb.ID, l.Show(prev.Path))})
			continue
		}
		lib.pbByID[pb.ID] = pb
		lib.Playbooks = append(lib.Playbooks, pb)
	}
	sort.Slice(lib.Playbooks, func(i, j int) bool { return lib.Playbooks[i].ID < lib.Playbooks[j].ID })
	problems = append(problems, lib.attachPlaybookKo(parseFiles(fsys, pbKo, parsePlaybookKo))...)

	incFiles, _ := fs.Glob(fsys, "incidents/*.md")
	incFiles, incKo := splitKorean(incFiles)
	parseIn := func(p string, src []byte) (*Incident, []Problem) { return parseIncident(p, src, tax, info) }
	for _, r := range parseFiles(fsys, incFiles, parseIn) {
		p, in := r.path, r.v
		if r.err != nil {
			problems = append(problems, Problem{Path: p, Msg: ReadReason(r.err)})
			continue
		}
		problems = append(problems, r.problems...)
		if in == nil {
			continue
		}
		if prev := lib.incByID[in.ID]; prev != nil {
			problems = append(problems, Problem{Path: p, Line: idLine(readOrNil(fsys, p)), Msg: fmt.Sprintf("duplicate incident id %s (also in %s)", in.ID, l.Show(prev.Path))})
			continue
		}
		lib.incByID[in.ID] = in
		lib.Incidents = append(lib.Incidents, in)
	}
	problems = append(problems, lib.attachIncidentKo(parseFiles(fsys, incKo, parseIncidentKo))...)

	files := make([]string, 0, len(lib.Incidents)+len(lib.Playbooks))
	for _, in := range lib.Incidents {
		files = append(files, in.Path)
	}
	for _, pb := range lib.Playbooks {
		files = append(files, pb.Path)
	}
	times := history(l, files)
	for _, in := range lib.Incidents {
		in.Provenance = provenance(info, in.Path, times)
	}
	for _, pb := range lib.Playbooks {
		pb.Provenance = provenance(info, pb.Path, times)
	}
	return lib, problems
}

func provenance(info LayerInfo, p string, times map[string]Provenance) Provenance {
	pv := times[p]
	pv.Layer = info.Name
	pv.EditURL = info.Edit(p)
	return pv
}

// SortNewestFirst orders incidents by date descending, then id.
func SortNewestFirst(ins []*Incident) {
	sort.SliceStable(ins, func(i, j int) bool {
		if ins[i].Date != ins[j].Date {
			return ins[i].Date > ins[j].Date
		}
		return ins[i].ID > ins[j].ID
	})
}

// Hash is a content hash over every file's path and bytes. Equal hashes mean
// the derived read models (SQLite, bleve) can be reused as they are.
func Hash(fsys fs.FS) (string, error) {
	h, _, _, err := hashFiles(fsys, false, false, nil)
	return h, err
}

// hashFiles is Hash, and with keep the files' bytes as they were hashed, for
// a parse that follows (see Files). With stat, the files are also statted
// (hashcache.go): without keep, when they stat as in prior, prior's hash
// is returned without reading them; stats is what to cache, nil when
// nothing new is to be written.
func hashFiles(fsys fs.FS, keep, stat bool, prior *layerStats) (hash string, kept *hashed, stats []fileStat, err error) {
	files, err := layerFiles(fsys)
	if err != nil {
		return "", nil, nil, fmt.Errorf("library: hash: %w", err)
	}
	if stat {
		// Stats taken before the files are read: a file that changes
		// while it is read stats differently at the next start.
		var ok bool
		if stats, ok = statFiles(fsys, files); !ok {
			stats = nil
		} else if prior.unchanged(stats) {
			if !keep {
				return prior.Hash, nil, nil, nil
			}
			stats = nil // read for the bytes; the cache holds already
		}
	}
	if keep {
		kept = &hashed{FS: fsys, index: make(map[string]int, len(files)), src: make([][]byte, len(files))}
	}
	// Reading the files is most of the hash (a warm start reads 10,000 of
	// them before anything else can start), so a chunk at a time is read on
	// every core and then hashed in walk order: the same hash as reading
	// them one by one.
	h := sha256.New()
	srcs := make([][]byte, hashChunk)
	for from := 0; from < len(files); from += hashChunk {
		chunk := files[from:min(from+hashChunk, len(files))]
		errs := readAll(fsys, chunk, srcs)
		for i, p := range chunk {
			if errs[i] != nil {
				// Not read (a link out of the layer, a device, a file over
				// the limit): the parse finds it refused again and says why
				// at its path; the hash changes when the reason does.
				fmt.Fprintf(h, "%s\x00refused\x00%s\x00", p, ReadReason(errs[i]))
				continue
			}
			fmt.Fprintf(h, "%s\x00%d\x00", p, len(srcs[i]))
			h.Write(srcs[i])
			if kept != nil {
				kept.index[p] = from + i
				kept.src[from+i] = srcs[i]
			}
			srcs[i] = nil
		}
	}
	return hex.EncodeToString(h.Sum(nil)), kept, stats, nil
}

// hashed is a folder whose files were just read for their hash: ReadFile
// hands out those bytes, once each, so a parse right after the hash reads no
// file twice (at 10,000 incidents a read of the whole library cost about
// half a second of CPU). A second read of a file, and any file not hashed,
// goes to the folder. Distinct files may be taken at the same time.
type hashed struct {
	fs.FS
	index map[string]int // file → its place in src; not written after hashFiles
	src   [][]byte
}

func (h *hashed) ReadFile(name string) ([]byte, error) {
	if i, ok := h.index[name]; ok && h.src[i] != nil {
		b := h.src[i]
		h.src[i] = nil
		return b, nil
	}
	return fs.ReadFile(h.FS, name)
}

// hashChunk is how many files Hash reads ahead of the hashing.
const hashChunk = 256

// readAll reads files into srcs (as long as files) on every core; the
// errors are each file's.
func readAll(fsys fs.FS, files []string, srcs [][]byte) []error {
	errs := make([]error, len(files))
	onEveryCore(len(files), func(i int) {
		srcs[i], errs[i] = fs.ReadFile(fsys, files[i])
	})
	return errs
}

// layerFiles are the files of a layer that the loaders read, in a fixed
// order: only these are read and hashed, so nothing else in the folder (a
// README, a build output, a link to a device) costs a load anything. A
// file of the list that is not a regular file, or is a link out of the
// layer, is still listed, to be refused at its path. The folders and
// patterns are those of this package, triage (triage/), gaps (checks/) and
// drill (drills/).
func layerFiles(fsys fs.FS) ([]string, error) {
	var files []string
	for _, name := range []string{LayerFile, "taxonomy.yaml"} {
		if _, err := fs.Stat(fsys, name); !errors.Is(err, fs.ErrNotExist) {
			files = append(files, name)
		}
	}
	for _, dir := range layerDirs {
		entries, err := fs.ReadDir(fsys, dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil && !errors.Is(err, ErrOutsideLayer) && !errors.Is(err, ErrNotRegular) && !errors.Is(err, syscall.ENOTDIR):
			return nil, err
		}
		if err != nil {
			files = append(files, dir) // refused at its path
			continue
		}
		for _, e := range entries {
			if n := e.Name(); !strings.HasPrefix(n, ".") && layerFile(dir, n) {
				files = append(files, dir+"/"+n)
			}
		}
	}
	return files, nil
}

// layerDirs are the folders of a layer the loaders read.
var layerDirs = []string{"checks", "drills", "incidents", "playbooks", "triage"}

// refusedDirs are the problems of the folders of a layer that cannot be
// listed (a link out of the layer, a file where the folder should be):
// their files are not read.
func refusedDirs(fsys fs.FS) []Problem {
	var out []Problem
	for _, dir := range layerDirs {
		fi, err := fs.Stat(fsys, dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			out = append(out, Problem{Path: dir, Msg: ReadReason(err)})
		case !fi.IsDir():
			out = append(out, Problem{Path: dir, Msg: "not read: a folder of the layer, but not a folder"})
		}
	}
	return out
}

// layerFile reports whether the loaders read the file name of the folder dir.
func layerFile(dir, name string) bool {
	switch dir {
	case "incidents", "playbooks":
		return strings.HasSuffix(name, ".md")
	case "drills":
		return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".snapshot.json")
	default:
		return strings.HasSuffix(name, ".yaml")
	}
}

// ReadReason is why a file was not read, without its path: problems carry
// the path beside.
func ReadReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func idLine(src []byte) int { return fieldLine(src, "id") }

// readOrNil reads a file again to place a problem found after parsing.
func readOrNil(fsys fs.FS, p string) []byte {
	src, _ := fs.ReadFile(fsys, p)
	return src
}

// fieldLine finds the line of a top-level front-matter field, for problems
// discovered after parsing.
func fieldLine(src []byte, field string) int {
	for i, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, field+":") {
			return i + 1
		}
		if i > 0 && strings.TrimSpace(line) == "---" {
			break
		}
	}
	return 1
}
