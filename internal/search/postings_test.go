package search

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestFieldsFileReadsBack holds the fields a warm start reads from the
// fields file to those the build made: the same terms, postings, lengths
// and forward-file numbers, field by field.
func TestFieldsFileReadsBack(t *testing.T) {
	ix := sharedIndex(t)
	fromFile, err := readMemIndex(filepath.Join(sharedDir, DirName(ix.lib.Hash)), len(ix.byRank))
	if err != nil {
		t.Fatal(err)
	}
	defer fromFile.close()
	for f := range numMem {
		got, want := &fromFile.fields[f], &ix.mem.fields[f]
		if len(want.terms) == 0 {
			t.Errorf("%s: no terms", memFieldNames[f])
		}
		for _, c := range []struct {
			what      string
			got, want any
		}{
			{"terms", got.terms, want.terms}, {"df", got.df, want.df}, {"offsets", got.off, want.off}, {"postings", got.data, want.data},
			{"lengths", got.lens, want.lens}, {"total", got.total, want.total}, {"ids", got.ids, want.ids},
		} {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("%s: %s read back differ from those built", memFieldNames[f], c.what)
			}
		}
	}
}
