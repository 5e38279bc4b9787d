package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"casebook/internal/access"
	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/live"
	"casebook/internal/search"
	"casebook/internal/selection"
	"casebook/internal/snapshot"
	"casebook/internal/store"
	"casebook/web/templates"
)

// httpError is an error with the status it should produce.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

var errUnavailable = &httpError{http.StatusServiceUnavailable, "the library is still loading; try again in a moment"}

func notFound(msg string) error { return &httpError{http.StatusNotFound, msg} }

// statusOf maps an error to a status code and the message a user may see:
// the one table for every handler. Only client errors expose their
// message; server errors say less.
func statusOf(err error) (int, string) {
	var he *httpError
	var br badRequest
	var qe *search.QueryError
	switch {
	case errors.As(err, &he):
		return he.status, he.msg
	case errors.As(err, &br):
		return http.StatusBadRequest, br.msg
	case errors.As(err, &qe):
		return http.StatusBadRequest, qe.Msg
	case errors.Is(err, selection.ErrInvalid), errors.Is(err, live.ErrInvalid):
		return http.StatusBadRequest, err.Error()
	case errors.Is(err, access.ErrDenied), errors.Is(err, snapshot.ErrNamespaceNotAllowed), errors.Is(err, snapshot.ErrForbidden):
		return http.StatusForbidden, err.Error()
	case errors.Is(err, access.ErrLimited):
		return http.StatusTooManyRequests, err.Error()
	case errors.Is(err, live.ErrOff):
		return http.StatusNotFound, err.Error() + "; paste an error or upload a snapshot instead"
	case errors.Is(err, snapshot.ErrNotFound):
		return http.StatusNotFound, err.Error()
	case errors.Is(err, snapshot.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, err.Error() + "; answer the questions instead at /triage"
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "not found"
	case isClientError(err):
		return http.StatusBadRequest, err.Error()
	}
	return http.StatusInternalServerError, "internal error; the request id is in the X-Request-Id header"
}

// clientError marks errors from other packages (a malformed search query)
// that are the client's fault.
type clientError interface{ ClientError() bool }

func isClientError(err error) bool {
	var ce clientError
	return errors.As(err, &ce) && ce.ClientError()
}

// handlerFunc is an http handler that returns its error; adapt turns the
// error into a page or a JSON body and logs only server errors.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (s *Server) adapt(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		if err == nil {
			return
		}
		status, msg := statusOf(err)
		var ae *access.Error
		if errors.As(err, &ae) && ae.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
		}
		if status >= 500 {
			s.log.Error("request failed", "path", r.URL.Path, "err", err, "request_id", requestID(r.Context()))
		}
		if wantsJSON(r) {
			writeJSON(w, status, map[string]string{"error": msg})
			return
		}
		pr := printer(r.Context())
		var nf *templates.NotFoundHelp
		if status == http.StatusNotFound {
			nf = notFoundHelp(pr, r.URL.Path)
		}
		c := s.content.Current()
		_ = render(r.Context(), w, status, templates.ErrorPage(s.chrome(c, statusTitle(pr, status), "", ""), status, msg, nf))
	}
}

// notFoundHelp offers a search for what a missing address seemed to name
// (its last segment, words apart) and the portal's starting points.
func notFoundHelp(p *i18n.Printer, path string) *templates.NotFoundHelp {
	last := path[strings.LastIndex(path, "/")+1:]
	if !library.IsIncidentID(strings.ToUpper(last)) {
		last = strings.Join(strings.FieldsFunc(last, func(r rune) bool { return r == '-' || r == '_' || r == '+' || r == '.' }), " ")
	}
	return &templates.NotFoundHelp{Query: last, Links: []templates.Link{
		{Label: p.T("nav.library"), Href: "/"},
		{Label: p.T("nav.playbooks"), Href: "/playbooks"},
		{Label: p.T("terms.title"), Href: "/terms"},
		{Label: p.T("nav.triage"), Href: "/triage"},
	}}
}

func wantsJSON(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || strings.HasSuffix(r.URL.Path, ".json") || strings.Contains(r.Header.Get("Accept"), "application/json") && !strings.Contains(r.Header.Get("Accept"), "text/html")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}
