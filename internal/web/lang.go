package web

import (
	"net/http"
	"net/url"
	"strings"

	"casebook/internal/i18n"
	"casebook/internal/selection"
	"casebook/web/templates"
)

// langCookie remembers a language chosen with ?lang=, for a year.
const langCookie = "casebook_lang"

// withLang negotiates the request's language (?lang=, the cookie, the
// browser's Accept-Language, the server's default), puts its printer and the
// page's alternates in the context, and remembers an explicit choice in a
// cookie so links without ?lang keep the language. An unknown lang value is
// a 400 naming the valid ones.
func (s *Server) withLang(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var cookie string
		if ck, err := r.Cookie(langCookie); err == nil {
			cookie = ck.Value
		}
		lang, src, err := i18n.Negotiate(r.URL.Query().Get("lang"), cookie, r.Header.Get("Accept-Language"), s.defaultLang)
		ctx := i18n.WithPrinter(r.Context(), i18n.Messages().Printer(lang))
		// The request as it came: a handler may rewrite its query later.
		path, rawQuery, base := r.URL.Path, r.URL.RawQuery, s.baseURL(r)
		ctx = templates.WithAlternates(ctx, func() templates.Alternates { return alternatesOf(path, rawQuery, base) })
		r = r.WithContext(ctx)
		h := w.Header()
		h.Add("Vary", "Accept-Language")
		h.Add("Vary", "Cookie")
		if err != nil {
			s.adapt(func(http.ResponseWriter, *http.Request) error { return badRequestOf(err) })(w, r)
			return
		}
		h.Set("Content-Language", string(lang))
		if src == i18n.FromQuery && cookie != string(lang) && !strings.HasPrefix(r.URL.Path, "/api/") {
			http.SetCookie(w, &http.Cookie{Name: langCookie, Value: string(lang), Path: "/", MaxAge: 365 * 24 * 3600,
				SameSite: http.SameSiteLaxMode, HttpOnly: true, Secure: r.TLS != nil})
		}
		next.ServeHTTP(w, r)
	})
}

// alternatesOf is the request's URL in each language: the same path and
// query with lang set, so switching keeps filters, the search, the page and
// a wizard walk. hreflang wants absolute URLs, under base (Server.baseURL).
// Only the parameters some page reads are kept, and only while the query
// stays under maxAlternateQuery: every page carries these links, so a
// request's junk must not be copied into it several times over.
func alternatesOf(path, rawQuery, base string) templates.Alternates {
	if len(rawQuery) > maxAlternateQuery {
		rawQuery = ""
	}
	q, _ := url.ParseQuery(rawQuery)
	for k := range q {
		if !pageParams[k] {
			delete(q, k)
		}
	}
	if len(q.Encode()) > maxAlternateQuery {
		q = nil
	}
	var a templates.Alternates
	with := func(l string) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		if l == "" {
			v.Del("lang")
		} else {
			v.Set("lang", l)
		}
		if e := v.Encode(); e != "" {
			return path + "?" + e
		}
		return path
	}
	for _, l := range i18n.Langs {
		h := with(string(l))
		a.Links = append(a.Links, templates.LangLink{Lang: l, Href: h, Abs: base + h})
	}
	a.Default = base + with("")
	return a
}

// maxAlternateQuery bounds the query a language link carries; a longer
// one (a shared wizard walk is a few KiB at most) is left off the link.
const maxAlternateQuery = 8 << 10

// pageParams are the query parameters some page reads: the filters, and
// those of search, paging, the graph, the wizard and its shared links.
var pageParams = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range append(selection.FilterParams, "q", "page", "per_page", "sort", "kind", "limit", "focus",
		"tree", "route", "a", "t", "e", "z", "rec", "ask", "unsure", "symptom", "playbook", "text", "body", "cmd",
		"pod", "namespace") {
		m[p] = true
	}
	return m
}()
