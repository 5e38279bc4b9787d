package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
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
	// Proxies are the addresses of the reverse proxies in front of the
	// portal: only a request from one of them has its X-Forwarded-Proto
	// and X-Forwarded-Host believed (anyone else could send them).
	Proxies []netip.Prefix
}

// Allows reports whether the request's Host (with or without a port) is
// accepted.
// A Host that is not a host name or IP literal with an optional decimal
// port is refused whatever the names: it would be written into absolute
// links as it came.
func (p HostPolicy) Allows(host string) bool {
	if host == "" {
		return len(p.Names) == 0
	}
	h, ok := hostName(host)
	if !ok {
		return false
	}
	if len(p.Names) == 0 {
		return true
	}
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

// hostName returns the name or IP literal of a Host header, lower case and
// without a port or a final dot, and whether the header is well formed:
// a host name of letters, digits, hyphens, dots and underscores, an IPv4
// literal or a bracketed IPv6 literal, then optionally ":" and a port
// number.
func hostName(host string) (string, bool) {
	h, port := host, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		h, port = host[:i], host[i+1:]
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 || strings.TrimLeft(port, "0123456789") != "" {
			return "", false
		}
	}
	if strings.HasPrefix(h, "[") {
		ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"))
		if err != nil || !strings.HasSuffix(h, "]") || !ip.Is6() {
			return "", false
		}
		return strings.ToLower(ip.String()), true
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "" || len(h) > 253 {
		return "", false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", false
		}
	}
	return h, true
}

// fromProxy reports whether r came from one of the configured proxies.
func (p HostPolicy) fromProxy(r *http.Request) bool {
	if len(p.Proxies) == 0 {
		return false
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	for _, pr := range p.Proxies {
		if pr.Contains(ap.Addr().Unmap()) {
			return true
		}
	}
	return false
}

// ParseProxies reads a --trusted-proxies value: comma-separated IP
// addresses or CIDR prefixes.
func ParseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if pr, err := netip.ParsePrefix(f); err == nil {
			out = append(out, pr.Masked())
			continue
		}
		ip, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR prefix such as 10.0.0.0/8", f)
		}
		out = append(out, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
	}
	return out, nil
}

func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// baseURL is the portal's absolute address for links that leave the page
// (the feed, hreflang alternates): the configured public URL, else the
// request's scheme and Host, which withAllowedHosts has vetted. Only from a
// configured proxy are X-Forwarded-Proto and X-Forwarded-Host taken
// instead, the host only when the portal answers to it.
func (s *Server) baseURL(r *http.Request) string {
	if s.publicURL != nil {
		return strings.TrimSuffix(s.publicURL.String(), "/")
	}
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if s.hosts.fromProxy(r) {
		if strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
			scheme = "https"
		}
		if fh, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Host"), ","); fh != "" && s.hosts.Allows(strings.TrimSpace(fh)) {
			host = strings.TrimSpace(fh)
		}
	}
	return scheme + "://" + host
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
