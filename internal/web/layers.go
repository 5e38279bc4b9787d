package web

import (
	"time"

	"casebook/internal/content"
	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/store"
	"casebook/web/templates"
)

// layerLabel is how pages name a layer: the public library in the page's
// language, a team's layer by the name its layer.yaml gives.
func layerLabel(p *i18n.Printer, name string) string {
	if name == "" || name == library.PublicLayer {
		return p.T("layer.public")
	}
	return name
}

// sourceFacet is the Source facet of the sidebar: the public library and
// each team layer, with their counts. A library of one layer has nothing
// to choose between, so the facet is left out.
func sourceFacet(p *i18n.Printer, c *content.Content, st listState, counts map[string][]store.FacetCount, path string) []templates.FacetGroup {
	if len(c.Layers) < 2 && len(st.Filter.Layers) == 0 {
		return nil
	}
	g := templates.FacetGroup{Param: "layer", Label: p.T("facet.layer")}
	seen := map[string]bool{}
	add := func(name string, count int) {
		seen[name] = true
		g.Values = append(g.Values, templates.FacetValue{Term: name, Label: layerLabel(p, name), Count: count,
			Selected: st.selected("layer", name), Href: st.toggle("layer", name).href(path)})
	}
	for _, fc := range counts["layer"] {
		add(fc.Term, fc.Count)
	}
	// A layer with no entry in this set, or a selected one, still shows
	// (with 0), so the facet always names every source.
	for _, name := range c.LayerNames() {
		if !seen[name] {
			add(name, 0)
		}
	}
	return []templates.FacetGroup{g}
}

// sourceChips are the active Source filters as chips.
func sourceChips(p *i18n.Printer, st listState, path string) []templates.Chip {
	var out []templates.Chip
	for _, l := range st.Filter.Layers {
		out = append(out, templates.Chip{Facet: p.T("facet.layer"), Label: layerLabel(p, l), Remove: st.toggle("layer", l).href(path)})
	}
	return out
}

// provenanceView is the "where this page comes from" block of an incident
// or playbook page: its layer, the link that edits its file, and when the
// file last changed.
func provenanceView(p *i18n.Printer, c *content.Content, layer, editURL, changed, changedFrom, path string) templates.Provenance {
	v := templates.Provenance{Layer: layer, LayerLabel: layerLabel(p, layer), EditURL: editURL, Path: path}
	if v.Layer == "" {
		v.Layer = library.PublicLayer
	}
	if info, ok := c.Layer(v.Layer); ok && v.Layer != library.PublicLayer {
		v.LayerTitle = info.Description
	}
	if t, err := time.Parse(time.RFC3339, changed); err == nil {
		v.Changed = p.Date(t.UTC().Format("2006-01-02"))
		v.ChangedISO = t.UTC().Format(time.RFC3339)
		switch changedFrom {
		case library.ChangedGit:
			v.ChangedNote = p.T("provenance.changed_git")
		case library.ChangedFile:
			v.ChangedNote = p.T("provenance.changed_file")
		}
	}
	return v
}

// layerPath is a file's path as its repository holds it: the public
// library lives under library/ of Casebook's repository; a team layer's
// path is relative to the layer's root (where its layer.yaml is).
func layerPath(layer, p string) string {
	if layer == "" || layer == library.PublicLayer {
		return "library/" + p
	}
	return p
}
