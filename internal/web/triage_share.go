package web

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"

	"casebook/internal/answer"
	"casebook/internal/triage"
)

// maxShareLink bounds a shared paste link: chat tools, proxies and browsers
// all pass URLs of 8 KB, and a describe pod compresses to well under that.
const maxShareLink = 8000

// pasteLink is the address that answers text again: the paste deflated
// into the query, so the server keeps nothing and the link works on any
// instance with the same library. ok is false when the paste is too long.
func pasteLink(text string) (link string, ok bool) {
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.BestCompression)
	_, _ = zw.Write([]byte(text))
	_ = zw.Close()
	link = "/triage/paste?" + url.Values{"z": {base64.RawURLEncoding.EncodeToString(buf.Bytes())}}.Encode()
	return link, len(link) <= maxShareLink
}

// errBadPasteLink is a z parameter that does not decode to a paste.
var errBadPasteLink = errors.New("the link's z parameter is not a Casebook paste (deflate, then base64url)")

// decodePasteLink reverses pasteLink, bounded by triage.MaxInput.
func decodePasteLink(z string) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(z)
	if err != nil {
		return "", errBadPasteLink
	}
	zr := flate.NewReader(bytes.NewReader(raw))
	defer zr.Close()
	text, err := io.ReadAll(io.LimitReader(zr, triage.MaxInput+1))
	if err != nil {
		return "", errBadPasteLink
	}
	if len(text) > triage.MaxInput {
		return "", errPasteTooLarge
	}
	return string(text), nil
}

// errPasteTooLarge is a paste past triage.MaxInput.
var errPasteTooLarge = errors.New("paste too large")

// handleTriagePasteLink answers a shared paste link: /triage/paste?z= (as
// the result page links it) or ?text= (plain, for scripts and chat bots),
// with the same page the form post shows.
func (s *Server) handleTriagePasteLink(w http.ResponseWriter, r *http.Request) error {
	c, cat, err := s.currentTriage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	text := q.Get("text")
	if z := q.Get("z"); z != "" {
		if text, err = decodePasteLink(z); err != nil {
			if errors.Is(err, errPasteTooLarge) {
				return userError(http.StatusRequestEntityTooLarge, "triage.paste_too_large")
			}
			return badRequestMsg("triage.share_bad_link")
		}
	}
	if len(text) > triage.MaxInput {
		return userError(http.StatusRequestEntityTooLarge, "triage.paste_too_large")
	}
	// The page echoes its own address (language switch, alternates), so an
	// address with a secret in it moves to the redacted link first.
	if clean, n := answer.Redact(text); n > 0 {
		if link, ok := pasteLink(clean); ok {
			if lang := q.Get("lang"); lang != "" {
				link += "&" + url.Values{"lang": {lang}}.Encode()
			}
			http.Redirect(w, r, link, http.StatusSeeOther)
			return nil
		}
		text = clean
	}
	return s.renderPaste(w, r, c, cat, text)
}
