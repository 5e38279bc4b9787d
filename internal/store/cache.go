package store

import (
	"context"
	"maps"
	"slices"
	"sync"

	"casebook/internal/library"
)

// cache holds answers that do not depend on the request. A Store never
// changes once built, so the unfiltered facet counts and the organisation
// list are computed once; the search page and API need them on every
// request, and at 10,000 incidents counting every facet costs a few hundred
// milliseconds.
type cache struct {
	mu        sync.Mutex
	countsTax *library.Taxonomy // the taxonomy counts was labelled with
	counts    map[string][]FacetCount
	orgSlugs  []string
	playbooks []PlaybookSummary
}

// allCounts returns the cached unfiltered counts for tax, computing them
// with compute on first use. Errors (a cancelled request) are not cached.
func (c *cache) allCounts(tax *library.Taxonomy, compute func() (map[string][]FacetCount, error)) (map[string][]FacetCount, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil || c.countsTax != tax {
		counts, err := compute()
		if err != nil {
			return nil, err
		}
		c.counts, c.countsTax = counts, tax
	}
	return cloneCounts(c.counts), nil
}

func (c *cache) slugs(ctx context.Context, compute func(context.Context) ([]string, error)) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.orgSlugs == nil {
		slugs, err := compute(ctx)
		if err != nil {
			return nil, err
		}
		c.orgSlugs = slugs
	}
	return slices.Clone(c.orgSlugs), nil
}

// playbookList returns the cached playbook list, reading it with compute on
// first use. The search page shows playbook cards on every request; reading
// them back from SQLite (JSON extraction from overflow pages) was a third of
// the page's CPU at 10,000 incidents.
func (c *cache) playbookList(ctx context.Context, compute func(context.Context) ([]PlaybookSummary, error)) ([]PlaybookSummary, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.playbooks == nil {
		pbs, err := compute(ctx)
		if err != nil {
			return nil, err
		}
		c.playbooks = pbs
	}
	out := slices.Clone(c.playbooks)
	for i := range out {
		out[i].Symptoms = slices.Clone(out[i].Symptoms)
	}
	return out, nil
}

// cloneCounts copies the map and its slices, so a caller that sorts or
// appends cannot change what the next caller gets.
func cloneCounts(in map[string][]FacetCount) map[string][]FacetCount {
	out := maps.Clone(in)
	for k, v := range out {
		out[k] = slices.Clone(v)
	}
	return out
}
