package search

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/util"
)

// build indexes the library into a temporary directory under dir and renames
// the finished index to path. Documents are analysed on every core (see
// analyse.go) and handed in library order to bleve's offline builder, which
// writes them in segments and merges those into one at the end; the short
// fields go to the memory fields' file beside it.
func build(dir, path string, ix *Index, merging func()) error {
	tmp, err := os.MkdirTemp(dir, buildPrefix)
	if err != nil {
		return fmt.Errorf("search: build: %w", err)
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "index")

	m, err := newMapping()
	if err != nil {
		return fmt.Errorf("search: mapping: %w", err)
	}
	b, err := newBuilder(work, tmp, m)
	if err != nil {
		return fmt.Errorf("search: build: %w", err)
	}
	mem := newMemBuilder(len(ix.byRank))
	fw, err := newFwdWriter(work, len(ix.byRank))
	if err != nil {
		b.Close()
		return err
	}
	err = ix.analyseAll(newAnalyser(m), func(rank int, a *analysed) error {
		for f := range a.counts {
			mem.add(memField(f), int32(rank), a.counts[f], a.lens[f])
		}
		if err := fw.add(&mem.ids, &a.fwd); err != nil {
			return fmt.Errorf("search: forward file: %w", err)
		}
		if err := b.Index(a.doc); err != nil {
			return fmt.Errorf("search: index %s: %w", ix.byRank[rank].id(), err)
		}
		return nil
	})
	if err == nil {
		err = fw.close()
	} else {
		fw.abort()
	}
	if err != nil {
		b.Close()
		return err
	}
	// The memory fields are packed before the merge, where a cold load
	// peaks: their builder's maps and growing lists are garbage by then.
	mi, err := mem.finish()
	if err != nil {
		b.Close()
		return err
	}
	mem = nil
	if merging != nil {
		merging()
	}
	if err := b.Close(); err != nil {
		return fmt.Errorf("search: build: %w", err)
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

// newBuilder starts bleve's offline (scorch) builder for an index at path,
// as bleve.NewBuilder does, but taking documents analysed in advance:
// bleve.NewBuilder's Index maps and analyses each document itself, in the
// builder's one goroutine. Its segments are written under tmp.
func newBuilder(path, tmp string, m *mapping.IndexMappingImpl) (*scorch.Builder, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, err
	}
	meta, _ := json.Marshal(map[string]string{"storage": scorch.Name, "index_type": scorch.Name})
	if err := os.WriteFile(filepath.Join(path, "index_meta.json"), meta, 0o644); err != nil {
		return nil, err
	}
	mb, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return scorch.NewBuilder(map[string]any{
		"path":            filepath.Join(path, "store"),
		"buildPathPrefix": tmp,
		"batchSize":       builderBatch,
		"internal":        map[string][]byte{string(util.MappingInternalKey): mb},
	})
}

// analyseBatch is how many documents the workers analyse together, and
// analyseAhead how many such batches may wait analysed for the builder, so
// that the analysis goes on while the builder turns its batch into a
// segment (one core's work, about 40 ms for builderBatch documents at
// 10,000 incidents, in which the other core analyses about 100). With
// three batches of 16 ahead the analysis stopped after 48 documents, the
// two took turns, and the index's steps before the merge used 1.5 of two
// cores instead of 1.9, about 1 s longer. Every document waiting costs
// memory at the cold load's peak (its token locations), so only two
// batches wait (docs/performance.md has the measurements).
const (
	analyseBatch = 32
	analyseAhead = 2
)

// analyseAll analyses every document on every core, a batch at a time, and
// hands them to use in library order, one at a time; the next batch is
// analysed while use consumes this one.
func (ix *Index) analyseAll(a *analyser, use func(rank int, d *analysed) error) error {
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

// openVerified opens the index at path read-only after checking that it is
// the complete, undamaged index of this content, and reads its memory
// fields. bleve can panic on a damaged segment, so a panic here is turned
// into an error and the caller rebuilds.
func openVerified(path, hash string, docs int) (bi bleve.Index, mem *memIndex, man *manifest, err error) {
	man, err = checkManifest(path, hash)
	if err != nil {
		return nil, nil, nil, err
	}
	if man.Docs != docs {
		return nil, nil, nil, fmt.Errorf("index holds %d documents, the library %d", man.Docs, docs)
	}
	if mem, err = readMemIndex(path, docs); err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			if bi != nil {
				bi.Close()
			}
			mem.close()
			bi, mem, man, err = nil, nil, nil, fmt.Errorf("index unreadable: %v", r)
		}
	}()
	bi, err = bleve.OpenUsing(path, map[string]any{"read_only": true})
	if err != nil {
		mem.close()
		return nil, nil, nil, fmt.Errorf("open: %w", err)
	}
	n, err := bi.DocCount()
	if err == nil && int(n) != docs {
		err = fmt.Errorf("index holds %d documents, want %d", n, docs)
	}
	if err == nil {
		_, err = bi.Search(bleve.NewSearchRequestOptions(query.NewMatchAllQuery(), 1, 0, false))
	}
	if err != nil {
		bi.Close()
		mem.close()
		return nil, nil, nil, fmt.Errorf("verify: %w", err)
	}
	return bi, mem, man, nil
}
