package web

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestHostPolicyAllows(t *testing.T) {
	named := HostPolicy{Names: []string{"casebook.example.com", "*.internal.example"}}
	open := HostPolicy{}
	tests := []struct {
		host        string
		named, open bool
	}{
		{"casebook.example.com", true, true},
		{"casebook.example.com:8443", true, true},
		{"a.internal.example", true, true},
		{"evil.com", false, true},
		{"10.1.2.3", true, true},
		{"10.1.2.3:8080", true, true},
		{"[::1]:8080", true, true},
		{"localhost:8080", true, true},
		// Written into links as it came, before the port was checked.
		{"1.2.3.4:80,evil.com", false, false},
		{"1.2.3.4:evil.com", false, false},
		{"casebook.example.com:80/x", false, false},
		{"1.2.3.4:99999", false, false},
		{"[::1", false, false},
		{"evil.com\"><script>", false, false},
	}
	for _, tt := range tests {
		if got := named.Allows(tt.host); got != tt.named {
			t.Errorf("with names, Allows(%q) = %v, want %v", tt.host, got, tt.named)
		}
		if got := open.Allows(tt.host); got != tt.open {
			t.Errorf("guard off, Allows(%q) = %v, want %v", tt.host, got, tt.open)
		}
	}
}

// X-Forwarded-Proto and -Host change the portal's absolute address only
// when the request comes from a configured proxy, and the host only when
// the portal answers to it.
func TestBaseURLTrustsOnlyProxies(t *testing.T) {
	proxy := netip.MustParsePrefix("10.0.0.0/8")
	s := &Server{hosts: HostPolicy{Names: []string{"casebook.example.com"}, Proxies: []netip.Prefix{proxy}}}
	tests := []struct {
		remote, proto, host, want string
	}{
		{"192.0.2.1:5000", "https", "casebook.example.com", "http://10.1.2.3"},
		{"10.0.0.5:5000", "https", "casebook.example.com", "https://casebook.example.com"},
		{"10.0.0.5:5000", "https", "evil.com", "https://10.1.2.3"},
		{"10.0.0.5:5000", "", "", "http://10.1.2.3"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host, r.RemoteAddr = "10.1.2.3", tt.remote
		r.Header.Set("X-Forwarded-Proto", tt.proto)
		r.Header.Set("X-Forwarded-Host", tt.host)
		if got := s.baseURL(r); got != tt.want {
			t.Errorf("from %s (proto %q, host %q): %s, want %s", tt.remote, tt.proto, tt.host, got, tt.want)
		}
	}
}

func TestParseProxies(t *testing.T) {
	got, err := ParseProxies("10.0.0.0/8, 192.0.2.7 ,::1")
	if err != nil || len(got) != 3 || !got[1].Contains(netip.MustParseAddr("192.0.2.7")) {
		t.Errorf("ParseProxies = %v, %v", got, err)
	}
	if _, err := ParseProxies("proxy.example.com"); err == nil {
		t.Error("a host name is accepted as a proxy address")
	}
}
