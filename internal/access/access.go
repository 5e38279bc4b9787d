// Package access holds the portal's one access policy and its one rate
// limiter. The web pages, the JSON API and the MCP tools all ask them, so
// an identity allowed (or refused, or slowed down) at one door is treated
// the same at every other.
package access

import (
	"casebook/internal/i18n"
	"context"
	"errors"
	"net"
	"strings"
)

// Policy is who may use the portal. The zero value trusts nobody's
// identity: every page is readable, and live triage is open to whoever can
// reach the portal (which cmd/server refuses to start without an explicit
// flag).
type Policy struct {
	// Header names the request header a fronting proxy (oauth2-proxy) sets
	// to the signed-in user's e-mail, e.g. X-Forwarded-Email. When set, a
	// request without it is refused: it did not come through the proxy.
	Header string
	// Users and Domains allow-list identities for live triage (and, when
	// RestrictReads is set, for everything). Empty lists allow any
	// authenticated identity.
	Users         []string
	Domains       []string
	RestrictReads bool
}

// ErrDenied is returned when an identity may not do what it asked.
var ErrDenied = errors.New("access denied")

// Caller is who makes a request: the identity the proxy vouched for, if
// any, and the client address.
type Caller struct {
	Identity string
	Addr     string // host, or host:port
}

// Key is the caller's rate-limit key: the normalised identity when there
// is one, else the client's host. The web and the MCP doors both use it,
// so one person has one bucket whichever door they come through.
func (c Caller) Key() string {
	if id := NormaliseIdentity(c.Identity); id != "" {
		return "id:" + id
	}
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		host = c.Addr
	}
	return "addr:" + host
}

// NormaliseIdentity trims and lower-cases an e-mail-like identity: proxies
// differ in the case they pass through.
func NormaliseIdentity(id string) string { return strings.ToLower(strings.TrimSpace(id)) }

// Allowed reports whether an identity is on the allow-list. Without an
// identity header every caller is allowed (nothing identifies them).
func (p Policy) Allowed(id string) bool {
	if p.Header == "" {
		return true
	}
	id = NormaliseIdentity(id)
	if id == "" {
		return false
	}
	if len(p.Users) == 0 && len(p.Domains) == 0 {
		return true
	}
	for _, u := range p.Users {
		if NormaliseIdentity(u) == id {
			return true
		}
	}
	if at := strings.LastIndexByte(id, '@'); at >= 0 {
		dom := id[at+1:]
		for _, d := range p.Domains {
			if NormaliseIdentity(strings.TrimPrefix(strings.TrimSpace(d), "@")) == dom {
				return true
			}
		}
	}
	return false
}

// LiveTriage checks that the caller may read the cluster through the
// portal: only allow-listed identities.
func (p Policy) LiveTriage(c Caller) error {
	if !p.Allowed(c.Identity) {
		m := i18n.M("live.denied")
		return &Error{Kind: ErrDenied, Msg: m.English(), M: m}
	}
	return nil
}

// Error is a refusal with the message a user sees, unwrapping to its kind
// (ErrDenied, ErrLimited) for errors.Is.
type Error struct {
	Kind error
	Msg  string
	// M is Msg as a catalogue message, for pages in other languages.
	M i18n.Msg
	// RetryAfter is how many seconds to wait, for ErrLimited.
	RetryAfter int
}

func (e *Error) Error() string { return e.Msg }

// Message is the refusal as a catalogue message (i18n.Localized).
func (e *Error) Message() i18n.Msg { return e.M }

// Unwrap returns the kind.
func (e *Error) Unwrap() error { return e.Kind }

type identityKey struct{}

// WithIdentity returns ctx carrying the identity the proxy vouched for, so
// services behind a door (the gap checks) serve the library that identity
// may see. The web and MCP doors set it.
func WithIdentity(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity WithIdentity put in ctx, or "".
func IdentityFrom(ctx context.Context) string {
	id, _ := ctx.Value(identityKey{}).(string)
	return id
}
