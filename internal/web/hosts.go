package web

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// HostPolicy is the DNS-rebinding guard: the host names the portal answers
// to. A page on another site can rebind its own name to the portal's
// address and read it from the user's browser, but the browser still sends
// that other name as Host; refusing names the portal does not own closes
// that door. A Host that is an IP literal, or localhost, is always
// accepted: a rebinding page always sends its own name, while kubelet
// probes and Prometheus scrapes arrive with the pod's IP.
type HostPolicy struct {
	// Names are the accepted host names, case-insensitive, without port;
	// "*.example.com" accepts every subdomain of example.com, and "*" (or
	// an empty list) every host: the guard is off.
	Names []string
	// Flag names the setting to change, for the refusal's message.
	Flag string
}

// Allows reports whether the request's Host (with or without a port) is
// accepted.
func (p HostPolicy) Allows(host string) bool {
	if len(p.Names) == 0 {
		return true
	}
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if net.ParseIP(h) != nil || h == "localhost" {
		return true // names no other site can make a browser send
	}
	for _, n := range p.Names {
		n = strings.ToLower(strings.TrimSuffix(n, "."))
		if n == "*" {
			return true // the operator turned the guard off
		}
		if wild, ok := strings.CutPrefix(n, "*."); ok {
			if strings.HasSuffix(h, "."+wild) {
				return true
			}
		} else if h == n {
			return true
		}
	}
	return false
}

// withAllowedHosts refuses requests whose Host the portal does not answer
// to, on every route, with 421 Misdirected Request and the setting that
// would admit the name.
func (s *Server) withAllowedHosts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.hosts.Allows(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		s.adapt(func(http.ResponseWriter, *http.Request) error {
			return userError(http.StatusMisdirectedRequest, "error.host", "host", quote(hostOnly(r.Host)), "flag", s.hosts.Flag)
		})(w, r)
	})
}

func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// baseURL is the portal's absolute address for links that leave the page
// (the feed, hreflang alternates): the configured public URL, else the
// request's scheme and Host, which withAllowedHosts has vetted.
func (s *Server) baseURL(r *http.Request) string {
	if s.publicURL != nil {
		return strings.TrimSuffix(s.publicURL.String(), "/")
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// ParsePublicURL checks a --public-url value: an absolute http(s) URL
// without query or fragment.
func ParsePublicURL(s string) (*url.URL, error) {
	if s == "" {
		return nil, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("want an absolute http(s) URL such as https://casebook.example.com, not %q", s)
	}
	return u, nil
}
