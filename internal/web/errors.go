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

// httpError is an error with the status it should produce: msg in English
// (the JSON API's "error"), m the same as a catalogue message when there
// is one, which pages show in their language.
type httpError struct {
	status int
	msg    string
	m      i18n.Msg
}

func (e *httpError) Error() string { return e.msg }

// Message is the catalogue message (i18n.Localized).
func (e *httpError) Message() i18n.Msg { return e.m }

// userError is an error of a status with a catalogue message.
func userError(status int, key string, args ...any) error {
	m := i18n.M(key, args...)
	return &httpError{status, m.English(), m}
}

var errUnavailable = userError(http.StatusServiceUnavailable, "error.loading")

func notFoundMsg(m i18n.Msg) error { return &httpError{http.StatusNotFound, m.English(), m} }

// notFoundOf is a 404 saying what err says.
func notFoundOf(err error) error {
	m, _ := i18n.MessageOf(err)
	return &httpError{http.StatusNotFound, err.Error(), m}
}

// startAgain is a refused walk state, pointing back to the start.
func startAgain(err error) error {
	m := i18n.M("error.start_again", "error", msgOf(err))
	return badRequest{err.Error() + "; start again at /triage", m}
}

// userMessage is what a user may read of an error: the English text and,
// when the error says it with the catalogue, the message in any language
// (zero when the text exists only in English).
type userMessage struct {
	en string
	m  i18n.Msg
}

// In renders the message in a printer's language, English where the
// catalogue has none.
func (u userMessage) In(p *i18n.Printer) string {
	if u.m.IsZero() {
		return u.en
	}
	return p.Msg(u.m)
}

// msgOf is err's catalogue message, or its text as an untranslated one.
func msgOf(err error) i18n.Msg {
	if m, ok := i18n.MessageOf(err); ok {
		return m
	}
	return i18n.M("error.text", "text", err.Error())
}

// said is err's own words for the user.
func said(err error) userMessage {
	m, _ := i18n.MessageOf(err)
	return userMessage{err.Error(), m}
}

// hinted is err's words with a hint after them (a catalogue message with
// an {error} placeholder; en is the English hint).
func hinted(err error, key, en string) userMessage {
	return userMessage{err.Error() + en, i18n.M(key, "error", msgOf(err))}
}

func catalogued(key string) userMessage {
	m := i18n.M(key)
	return userMessage{m.English(), m}
}

// statusOf maps an error to a status code and the message a user may see:
// the one table for every handler. Only client errors expose their
// message; server errors say less. Errors are matched by type (errors.Is,
// errors.As), never by text.
func statusOf(err error) (int, userMessage) {
	var he *httpError
	var br badRequest
	var qe *search.QueryError
	switch {
	case errors.As(err, &he):
		return he.status, userMessage{he.msg, he.m}
	case errors.As(err, &br):
		return http.StatusBadRequest, userMessage{br.msg, br.m}
	case errors.As(err, &qe):
		return http.StatusBadRequest, userMessage{qe.Msg, qe.M}
	case errors.Is(err, selection.ErrInvalid), errors.Is(err, live.ErrInvalid):
		return http.StatusBadRequest, said(err)
	case errors.Is(err, access.ErrDenied), errors.Is(err, snapshot.ErrNamespaceNotAllowed), errors.Is(err, snapshot.ErrForbidden):
		return http.StatusForbidden, said(err)
	case errors.Is(err, access.ErrLimited):
		return http.StatusTooManyRequests, said(err)
	case errors.Is(err, live.ErrOff):
		return http.StatusNotFound, hinted(err, "error.live_off_hint", "; paste an error or upload a snapshot instead")
	case errors.Is(err, snapshot.ErrNotFound):
		return http.StatusNotFound, said(err)
	case errors.Is(err, snapshot.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, hinted(err, "error.ask_instead", "; answer the questions instead at /triage")
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, catalogued("error.not_found")
	case isClientError(err):
		return http.StatusBadRequest, said(err)
	}
	return http.StatusInternalServerError, catalogued("error.internal")
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
		r = s.pin(w, r)
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
		pr := printer(r.Context())
		if wantsJSON(r) {
			writeJSON(w, status, errorBody(msg))
			return
		}
		var nf *templates.NotFoundHelp
		if status == http.StatusNotFound {
			nf = notFoundHelp(pr, r.URL.Path)
		}
		c, _ := s.current(r)
		_ = render(r.Context(), w, status, templates.ErrorPage(s.chrome(c, statusTitle(pr, status), "", ""), status, msg.In(pr), nf))
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

// errorBody is the JSON of an error: "error" in English, the contract
// every client reads, and "error_ko" beside it when the catalogue says it
// in Korean.
func errorBody(u userMessage) map[string]string {
	out := map[string]string{"error": u.en}
	if !u.m.IsZero() && u.m.Key != "error.text" {
		out["error_ko"] = i18n.Messages().Printer(i18n.KO).Msg(u.m)
	}
	return out
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
