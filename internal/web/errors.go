package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"casebook/internal/selection"
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

// statusOf maps an error to a status code and the message a user may see.
// Only client errors expose their message; server errors say less.
func statusOf(err error) (int, string) {
	var he *httpError
	var br badRequest
	switch {
	case errors.As(err, &he):
		return he.status, he.msg
	case errors.As(err, &br):
		return http.StatusBadRequest, br.msg
	case errors.Is(err, selection.ErrInvalid):
		return http.StatusBadRequest, err.Error()
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
		if status >= 500 {
			s.log.Error("request failed", "path", r.URL.Path, "err", err, "request_id", requestID(r.Context()))
		}
		if wantsJSON(r) {
			writeJSON(w, status, map[string]string{"error": msg})
			return
		}
		title := http.StatusText(status)
		c := s.content.Current()
		_ = render(r.Context(), w, status, templates.ErrorPage(s.chrome(c, title, "", ""), status, msg))
	}
}

func wantsJSON(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || strings.Contains(r.Header.Get("Accept"), "application/json") && !strings.Contains(r.Header.Get("Accept"), "text/html")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}
