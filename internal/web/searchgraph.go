package web

import (
	"container/list"
	"context"
	"sync"

	"casebook/internal/content"
	"casebook/internal/graph"
	"casebook/internal/search"
	"casebook/internal/store"
)

// searchGraphs caches the graphs of search results per loaded library,
// query, filters and focus. The search page does not build its graph; its
// panel loads it from /api/graph, which a user opening the same result
// twice, or many users searching the same words, should not rebuild.
type searchGraphs struct {
	mu    sync.Mutex
	order *list.List // of *graphEntry, most recent first
	byKey map[string]*list.Element
}

type graphEntry struct {
	key string
	g   graph.Graph
}

// maxSearchGraphs bounds the cache: a graph of a broad result at 10,000
// incidents holds a few thousand nodes.
const maxSearchGraphs = 64

func (m *searchGraphs) get(ctx context.Context, c *content.Content, req search.Request, key, focus string) (graph.Graph, error) {
	key = c.Hash + "\x00" + focus + "\x00" + key
	m.mu.Lock()
	if m.byKey == nil {
		m.order, m.byKey = list.New(), map[string]*list.Element{}
	}
	if el, ok := m.byKey[key]; ok {
		m.order.MoveToFront(el)
		g := el.Value.(*graphEntry).g
		m.mu.Unlock()
		return g, nil
	}
	m.mu.Unlock()
	links, err := c.Search.Links(ctx, req)
	if err != nil {
		return graph.Graph{}, err
	}
	sl := make([]store.TermLink, len(links))
	for i, l := range links {
		sl[i] = store.TermLink{Incident: l.Incident, Facet: l.Facet, Term: l.Term}
	}
	g := c.DrawGraph(sl, focus)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byKey[key]; !ok {
		m.byKey[key] = m.order.PushFront(&graphEntry{key: key, g: g})
		for m.order.Len() > maxSearchGraphs {
			el := m.order.Back()
			m.order.Remove(el)
			delete(m.byKey, el.Value.(*graphEntry).key)
		}
	}
	return g, nil
}
