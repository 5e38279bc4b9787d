package web

import (
	"encoding/xml"
	"net/http"
	"time"

	"casebook/internal/store"
)

type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Title   string      `xml:"title"`
	ID      string      `xml:"id"`
	Updated string      `xml:"updated"`
	Link    []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr,omitempty"`
}

type atomEntry struct {
	Title   string   `xml:"title"`
	ID      string   `xml:"id"`
	Updated string   `xml:"updated"`
	Link    atomLink `xml:"link"`
	Summary string   `xml:"summary"`
	Author  struct {
		Name string `xml:"name"`
	} `xml:"author"`
}

// handleFeed serves the newest incidents as Atom. Links are absolute, since
// feed readers resolve nothing: from --public-url, else from the vetted
// Host of the request.
func (s *Server) handleFeed(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current()
	if err != nil {
		return err
	}
	items, _, err := c.Store.ListIncidents(r.Context(), store.Filter{}, store.SortNewest, 1, 50)
	if err != nil {
		return err
	}
	base := s.baseURL(r)
	updated := c.LoadedAt.UTC().Format(time.RFC3339)
	f := atomFeed{Title: "Casebook: newest incidents", ID: base + "/feed.atom", Updated: updated,
		Link: []atomLink{{Href: base + "/feed.atom", Rel: "self"}, {Href: base + "/"}}}
	for _, it := range items {
		e := atomEntry{Title: it.ID + " " + it.Title, ID: base + "/incidents/" + it.ID, Updated: entryDate(it.Date, updated),
			Link: atomLink{Href: base + "/incidents/" + it.ID}, Summary: it.Summary}
		e.Author.Name = it.Organization
		f.Entries = append(f.Entries, e)
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	_, _ = w.Write([]byte(xml.Header))
	return xml.NewEncoder(w).Encode(f)
}

// entryDate turns "2024-03" or "2024-03-12" into an RFC 3339 timestamp.
func entryDate(d, fallback string) string {
	for _, layout := range []string{"2006-01-02", "2006-01"} {
		if t, err := time.Parse(layout, d); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return fallback
}
