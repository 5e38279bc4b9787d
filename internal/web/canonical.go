package web

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"casebook/internal/library"
)

// canonicalPath is the spelling of a path the portal serves: lower case,
// except incident ids, which are upper case (il-0171 is IL-0171). A link
// typed by hand or mangled by a chat client still lands.
func canonicalPath(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if up := strings.ToUpper(p); library.IsIncidentID(up) {
			parts[i] = up
		} else {
			parts[i] = strings.ToLower(p)
		}
	}
	return strings.Join(parts, "/")
}

// redirectCanonical sends a GET or HEAD for a path the router does not
// know to its canonical spelling when the router knows that one; it
// reports whether it did.
func redirectCanonical(router chi.Routes, w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	canon := canonicalPath(r.URL.Path)
	if canon == r.URL.Path || !router.Match(chi.NewRouteContext(), http.MethodGet, canon) {
		return false
	}
	redirectSamePage(w, r, canon)
	return true
}

// redirectSamePage moves a request to path, keeping its query.
func redirectSamePage(w http.ResponseWriter, r *http.Request, path string) {
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, path, http.StatusMovedPermanently)
}
