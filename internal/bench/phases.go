package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/store"
	"casebook/internal/triage"
)

// Phase is one step of a load, timed on its own.
type Phase struct {
	Name string        `json:"name"`
	Wall time.Duration `json:"wall"`
	CPU  time.Duration `json:"cpu"`
	Mem  Mem           `json:"mem"` // after the step
}

// ProfileOptions name the pprof files MeasurePhases writes; empty skips.
type ProfileOptions struct {
	CPU, Heap string
}

// MeasurePhases runs the steps of a cold load one by one — content hash,
// parse, SQLite read model, search index, triage catalogue — then the steps
// of a warm start on what they left, and reports each. It is the profile
// behind the cold and warm numbers, not a replacement for them: the server
// runs the same steps through content.Loader.
func MeasurePhases(ctx context.Context, libDir, dataDir string, prof ProfileOptions) ([]Phase, error) {
	if prof.CPU != "" {
		f, err := os.Create(prof.CPU)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		defer pprof.StopCPUProfile()
	}
	var phases []Phase
	step := func(name string, fn func() error) error {
		t, c := time.Now(), CPUTime()
		if err := fn(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		m, _ := ReadMem(0)
		phases = append(phases, Phase{Name: name, Wall: time.Since(t), CPU: CPUTime() - c, Mem: m})
		return nil
	}
	fsys := os.DirFS(libDir)
	var lib *library.Library
	var st *store.Store
	var ix *search.Index
	err := step("cold: content hash", func() error { _, err := library.Hash(fsys); return err })
	if err == nil {
		err = step("cold: parse (library.Load)", func() (err error) { lib, _, err = library.Load(fsys); return err })
	}
	if err == nil {
		err = step("cold: read model (store.Build)", func() (err error) { st, err = store.Build(ctx, dataDir, lib, nil); return err })
	}
	if err == nil {
		err = step("cold: search index (search.Open)", func() (err error) { ix, err = search.Open(dataDir, lib); return err })
	}
	if err == nil {
		err = step("cold: triage catalogue", func() error { triage.Load(fsys); return nil })
	}
	if err != nil {
		return phases, err
	}
	if prof.Heap != "" {
		runtime.GC()
		if err := writeHeap(prof.Heap); err != nil {
			return phases, err
		}
	}
	st.Close()
	ix.Close()
	lib = nil
	runtime.GC()
	var hash string
	err = step("warm: content hash", func() (err error) { hash, err = library.Hash(fsys); return err })
	if err == nil {
		err = step("warm: open read model (store.Open)", func() (err error) { st, err = store.Open(ctx, dataDir, hash); return err })
	}
	if err == nil {
		defer st.Close()
		err = step("warm: parse again (search.Open needs the library)", func() (err error) { lib, _, err = library.Load(fsys); return err })
	}
	if err == nil {
		err = step("warm: open search index (search.Open, reused)", func() (err error) { ix, err = search.Open(dataDir, lib); return err })
	}
	if err == nil {
		ix.Close()
	}
	return phases, err
}

func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.WriteHeapProfile(f)
}
