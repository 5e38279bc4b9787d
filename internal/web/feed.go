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

// handleFeed serves the incidents last added to the library as Atom,
// filtered like the library (/feed.atom?component=gpu-driver): a 2019
// postmortem added today is news to a reader, so the order is the day an
// entry was added, not the day it happened. Entries whose file has no
// added day come after, newest incident first, and carry their incident
// date. Links are absolute, since feed readers resolve nothing: from
// --public-url, else from the vetted Host of the request.
func (s *Server) handleFeed(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	st, err := parseListFor(r, c)
	if err != nil {
		return err
	}
	items, _, err := c.Store.ListIncidents(r.Context(), st.Filter, store.SortAdded, 1, 50)
	if err != nil {
		return err
	}
	pr := printer(r.Context())
	base := s.baseURL(r)
	self := base + feedHref(st)
	list := base + "/"
	if e := st.filterValues().Encode(); e != "" {
		list += "?" + e
	}
	title := pr.T("layout.feed_title")
	if ch, _ := chips(pr, c.Taxonomy, st, "/", c.Orgs); len(ch) > 0 {
		title = listTitle(pr, title, ch, 1)
	}
	loaded := c.LoadedAt.UTC().Format(time.RFC3339)
	f := atomFeed{Title: title, ID: self, Updated: loaded, Link: []atomLink{{Href: self, Rel: "self"}, {Href: list}}}
	for i, it := range items {
		e := atomEntry{Title: it.ID + " " + pr.PickText(it.Title, it.TitleKo), ID: base + "/incidents/" + it.ID,
			Updated: entryDate(it.Added, entryDate(it.Date, loaded)), Link: atomLink{Href: base + "/incidents/" + it.ID},
			Summary: pr.PickText(it.Summary, it.SummaryKo)}
		e.Author.Name = it.Organization
		if i == 0 {
			f.Updated = e.Updated
		}
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
