package selection_test

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/selection"
	"casebook/internal/store"
)

// TestFiltersAgree runs every case of testdata/filters.txt through Parse
// and asks both read models: the store's list and the index's listing
// select the same incidents, so the rules written twice (SQL, bitsets)
// cannot drift.
func TestFiltersAgree(t *testing.T) {
	lib, _, err := library.Load(os.DirFS("../../library"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Build(ctx, t.TempDir(), lib, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix, err := search.Open(t.TempDir(), lib)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	orgs := map[string]string{}
	var layers []string
	for _, in := range lib.Incidents {
		orgs[library.Slug(in.Organization)] = in.Organization
		if !slices.Contains(layers, in.Layer) {
			layers = append(layers, in.Layer)
		}
	}
	f, err := os.Open("testdata/filters.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	cases := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cases++
		q, err := url.ParseQuery(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		q.Set("kind", selection.KindIncident)
		sel, err := selection.Parse(q, lib.Taxonomy, orgs, layers, selection.Paging{DefaultPerPage: 100, MaxPerPage: 100})
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		var fromStore, fromIndex []string
		total := -1
		for page := 1; total < 0 || len(fromStore) < total; page++ {
			sums, n, err := st.ListIncidents(ctx, sel.Filter, store.SortNewest, page, 100)
			if err != nil {
				t.Fatalf("%s: store: %v", line, err)
			}
			total = n
			if len(sums) == 0 {
				break
			}
			for _, s := range sums {
				fromStore = append(fromStore, s.ID)
			}
		}
		for page := 1; ; page++ {
			req := sel.SearchRequest()
			req.Page = page
			res, err := ix.Search(ctx, req)
			if err != nil {
				t.Fatalf("%s: search: %v", line, err)
			}
			if res.Total != total {
				t.Errorf("%s: the store counts %d incidents, the index %d", line, total, res.Total)
			}
			for _, h := range res.Hits {
				fromIndex = append(fromIndex, h.ID)
			}
			if len(res.Hits) == 0 || len(fromIndex) >= res.Total {
				break
			}
		}
		slices.Sort(fromStore)
		slices.Sort(fromIndex)
		if !slices.Equal(fromStore, fromIndex) {
			t.Errorf("%s: the store selects %v, the index %v", line, fromStore, fromIndex)
		}
		if total == 0 {
			t.Errorf("%s: selects nothing; a case should select something to compare", line)
		}
	}
	if cases < 10 {
		t.Errorf("only %d filter cases", cases)
	}
}
