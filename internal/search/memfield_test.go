package search

import (
	"context"
	"path/filepath"
	"testing"

	index "github.com/blevesearch/bleve_index_api"
)

// TestProseFieldsMatchBleve holds the memory copy of the prose fields to
// bleve's postings, term by term: the same documents, term frequencies and
// lengths to the bit (so scores are unchanged), both as built and as read
// back from the fields file by a warm start.
func TestProseFieldsMatchBleve(t *testing.T) {
	ix := sharedIndex(t)
	fromFile, err := readMemIndex(filepath.Join(sharedDir, DirName(ix.lib.Hash)), len(ix.byRank))
	if err != nil {
		t.Fatal(err)
	}
	defer fromFile.close()
	rd := bleveReader(t, ix)
	type posting struct {
		tf     uint64
		length float64
	}
	for _, field := range bleveFields {
		mf, ok := memFieldOf(field)
		if !ok || !mf.mirrorsBleve() {
			t.Fatalf("field %s has no memory copy", field)
		}
		dict, err := rd.FieldDict(field)
		if err != nil {
			t.Fatal(err)
		}
		terms, postings := 0, 0
		for {
			e, err := dict.Next()
			if err != nil {
				t.Fatal(err)
			}
			if e == nil {
				break
			}
			terms++
			want := map[int32]posting{}
			tfr, err := rd.TermFieldReader(context.Background(), []byte(e.Term), field, true, true, false)
			if err != nil {
				t.Fatal(err)
			}
			var tfd index.TermFieldDoc
			for {
				d, err := tfr.Next(tfd.Reset())
				if err != nil {
					t.Fatal(err)
				}
				if d == nil {
					break
				}
				want[ix.rankOf[d.ID.Value()]] = posting{d.Freq, 1 / (d.Norm * d.Norm)}
			}
			tfr.Close()
			postings += len(want)
			for name, m := range map[string]*memIndex{"built": ix.mem, "read back": fromFile} {
				p := &m.fields[mf]
				i, ok := p.lookup(e.Term)
				if !ok {
					t.Fatalf("%s, %s: %q is not in the memory field", name, field, e.Term)
				}
				if int(p.df[i]) != len(want) {
					t.Fatalf("%s, %s: %q in %d documents, bleve %d", name, field, e.Term, p.df[i], len(want))
				}
				for it := p.iter(i); it.next(); {
					w, ok := want[it.rank]
					if !ok || uint64(it.tf) != w.tf || p.length(it.rank) != w.length {
						t.Fatalf("%s, %s: %q in %s: tf %d, length %v; bleve %+v (present %v)", name, field, e.Term,
							ix.byRank[it.rank].id(), it.tf, p.length(it.rank), w, ok)
					}
				}
			}
		}
		dict.Close()
		if n := len(ix.mem.fields[mf].terms); n != terms {
			t.Errorf("%s: %d terms in memory, %d in bleve", field, n, terms)
		}
		if field == fieldAll && postings < 10000 {
			t.Errorf("%s: only %d postings compared: the shipped library should give far more", field, postings)
		}
	}
}
