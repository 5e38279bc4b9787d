package content

import (
	"context"

	"casebook/internal/graph"
	"casebook/internal/library"
	"casebook/internal/store"
)

// wholeGraph draws the graph of every incident, labelled from the taxonomy.
func wholeGraph(lib *library.Library) graph.Graph {
	return drawGraph(lib.Taxonomy, libraryLinks(lib), "")
}

// libraryLinks are the incident-term edges of every incident, in the order
// the read model's unfiltered Links returns them (library order, then each
// incident's causes, components, symptoms and factors as written), read
// from the parsed library rather than SQLite, which would take a query of
// every edge on each start.
func libraryLinks(lib *library.Library) []store.TermLink {
	var out []store.TermLink
	for _, in := range lib.Incidents {
		for _, f := range []library.Facet{library.FacetCause, library.FacetComponent, library.FacetSymptom, library.FacetFactor} {
			for _, id := range in.Terms(f) {
				out = append(out, store.TermLink{Incident: in.ID, Facet: f, Term: id})
			}
		}
	}
	return out
}

// graphJob is the whole-library graph being drawn on another goroutine.
type graphJob struct {
	done  chan struct{}
	graph graph.Graph
}

func drawAside(lib *library.Library) *graphJob {
	j := &graphJob{done: make(chan struct{})}
	go func() {
		defer close(j.done)
		j.graph = wholeGraph(lib)
	}()
	return j
}

// wait returns the graph once it is drawn.
func (j *graphJob) wait() graph.Graph {
	<-j.done
	return j.graph
}

// DrawGraph draws the graph of a set of incident-term links (of a filter or
// a search result) with the taxonomy's labels, focused on one "facet:term"
// when focus is set.
func (c *Content) DrawGraph(links []store.TermLink, focus string) graph.Graph {
	return drawGraph(c.Taxonomy, links, focus)
}

func drawGraph(tax *library.Taxonomy, links []store.TermLink, focus string) graph.Graph {
	gl := make([]graph.Link, len(links))
	for i, l := range links {
		gl[i] = graph.Link{Case: l.Incident, Facet: string(l.Facet), Term: l.Term}
	}
	return graph.Build(gl, graph.Options{Focus: focus, Label: func(kind, id string) string {
		if kind == "case" {
			return id
		}
		f, _ := library.ParseFacet(kind)
		return tax.Label(f, id)
	}})
}

// GraphOf returns the graph of the incidents f selects, focused on one
// "facet:term" when focus is set: the precomputed whole-library Graph when
// neither narrows it, else drawn from the store's links.
func (c *Content) GraphOf(ctx context.Context, f store.Filter, focus string) (graph.Graph, error) {
	if f.Empty() && focus == "" {
		return c.Graph, nil
	}
	links, err := c.Store.Links(ctx, f)
	if err != nil {
		return graph.Graph{}, err
	}
	return c.DrawGraph(links, focus), nil
}
