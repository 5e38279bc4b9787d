package bench

import (
	"os"
	"strings"
	"testing"

	"casebook/internal/library"
)

func TestQueryLog(t *testing.T) {
	lib, _, err := library.Load(os.DirFS("../../library"))
	if err != nil {
		t.Fatal(err)
	}
	spec := DefaultLog
	spec.Distinct, spec.Requests = 3000, 50_000
	ql := BuildQueryLog(lib, spec)
	if len(ql.Queries) < spec.Distinct {
		t.Errorf("%d distinct queries, want %d", len(ql.Queries), spec.Distinct)
	}
	if d := ql.Distinct(); d < spec.Distinct*7/10 {
		t.Errorf("the sampled log asks %d distinct queries of %d", d, len(ql.Queries))
	}
	counts := map[int]int{}
	for _, i := range ql.Log {
		counts[i]++
	}
	if counts[0] < counts[len(ql.Queries)/2]*20 {
		t.Errorf("not Zipf-like: the top query asked %d times, the median %d", counts[0], counts[len(ql.Queries)/2])
	}
	cats := map[string]int{}
	for _, q := range ql.Queries {
		cats[q.Category]++
	}
	for _, c := range []string{"label", "korean", "error", "typo", "words"} {
		if cats[c] == 0 {
			t.Errorf("no %s queries in %v", c, cats)
		}
	}
	again := BuildQueryLog(lib, spec)
	if strings.Join(again.Paths("/")[:50], "|") != strings.Join(ql.Paths("/")[:50], "|") {
		t.Error("the same seed gives another log")
	}
}
