package web

import (
	"context"
	"sync"

	"casebook/internal/content"
	"casebook/internal/graph"
	"casebook/internal/store"
)

// graphMemo keeps the graph of the whole library, unfiltered and without
// focus, for the current Content. The library page, the search page and
// /api/graph draw it on most requests, and at 10,000 incidents reading the
// term links and building the graph cost about half a second of CPU each
// time. A Content never changes, so the graph is built once per load.
type graphMemo struct {
	mu sync.Mutex
	c  *content.Content
	g  graph.Graph
}

// graph returns the graph of c for filter f and focus, from the memo when
// they select the whole library.
func (m *graphMemo) graph(ctx context.Context, c *content.Content, f store.Filter, focus string) (graph.Graph, error) {
	if !f.Empty() || focus != "" {
		links, err := c.Store.Links(ctx, f)
		if err != nil {
			return graph.Graph{}, err
		}
		return buildGraph(c, links, focus), nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.c != c {
		links, err := c.Store.Links(ctx, f)
		if err != nil {
			return graph.Graph{}, err
		}
		m.c, m.g = c, buildGraph(c, links, "")
	}
	return m.g, nil
}
