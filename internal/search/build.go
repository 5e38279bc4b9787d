package search

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// build indexes the library into a temporary directory under dir and renames
// the finished index to path. Documents are analysed on every core and
// taken in library order into the memory fields and the forward file.
func build(dir, path string, ix *Index, analysedAll func()) error {
	tmp, err := os.MkdirTemp(dir, buildPrefix)
	if err != nil {
		return fmt.Errorf("search: build: %w", err)
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "index")
	if err := os.Mkdir(work, 0o755); err != nil {
		return fmt.Errorf("search: build: %w", err)
	}
	an, err := newAnalyzers()
	if err != nil {
		return err
	}
	mem := newMemBuilder(len(ix.byRank))
	fw, err := newFwdWriter(work, len(ix.byRank))
	if err != nil {
		return err
	}
	err = ix.analyseAll(an, func(rank int, a *analysed) error {
		for f := range a.counts {
			mem.add(memField(f), int32(rank), a.counts[f], a.lens[f])
		}
		if err := fw.add(&mem.ids, &a.fwd); err != nil {
			return fmt.Errorf("search: forward file: %w", err)
		}
		return nil
	})
	if err == nil {
		err = fw.close()
	} else {
		fw.abort()
	}
	if err != nil {
		return err
	}
	mi, err := mem.finish()
	if err != nil {
		return err
	}
	mem = nil
	if analysedAll != nil {
		analysedAll()
	}
	if err := mi.write(work); err != nil {
		return err
	}
	if err := writeManifest(work, manifest{Hash: ix.lib.Hash, Docs: len(ix.byRank)}); err != nil {
		return err
	}
	if err := os.Rename(work, path); err != nil {
		// Another process may have finished the same build first; its
		// index is as good as ours.
		if _, verr := checkManifest(path, ix.lib.Hash); verr == nil {
			return nil
		}
		return fmt.Errorf("search: move index into place: %w", err)
	}
	return nil
}

// analyseBatch is how many documents the workers analyse together, and
// analyseAhead how many such batches may wait analysed, so that the
// analysis goes on while the previous batch is taken into the memory
// fields and the forward file. Every document waiting costs memory (its
// places), so only two batches wait.
const (
	analyseBatch = 32
	analyseAhead = 2
)

// analyseAll analyses every document on every core, a batch at a time, and
// hands them to use in library order, one at a time; the next batch is
// analysed while use consumes this one.
func (ix *Index) analyseAll(a *analyzers, use func(rank int, d *analysed) error) error {
	n := len(ix.byRank)
	workers := max(1, runtime.GOMAXPROCS(0))
	type batch struct {
		from int
		docs []*analysed
	}
	batches := make(chan batch, analyseAhead)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(batches)
		arenas := make([]tokenArena, workers) // worker w's, reused batch after batch
		for from := 0; from < n; from += analyseBatch {
			docs := make([]*analysed, min(analyseBatch, n-from))
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					arena := &arenas[w]
					for i := w; i < len(docs); i += workers {
						d := ix.document(from + i)
						d.addIdentifiers()
						docs[i] = a.analyse(d, arena)
					}
				}()
			}
			wg.Wait()
			select {
			case batches <- batch{from, docs}:
			case <-stop:
				return
			}
		}
	}()
	for b := range batches {
		for i, d := range b.docs {
			if err := use(b.from+i, d); err != nil {
				return err
			}
			b.docs[i] = nil
		}
	}
	return nil
}

// openVerified reads the index at path after checking that it is the
// complete, undamaged index of this content.
func openVerified(path, hash string, docs int) (*memIndex, *manifest, error) {
	man, err := checkManifest(path, hash)
	if err != nil {
		return nil, nil, err
	}
	if man.Docs != docs {
		return nil, nil, fmt.Errorf("index holds %d documents, the library %d", man.Docs, docs)
	}
	mem, err := readMemIndex(path, docs)
	if err != nil {
		return nil, nil, err
	}
	return mem, man, nil
}
