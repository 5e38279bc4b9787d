package web

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Access is the portal's access policy. The zero value trusts nobody's
// identity: every page is readable, nothing can be written, and live triage
// is open to whoever can reach the portal (cmd/server warns about that).
type Access struct {
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
	// RateLimit is the number of classify and live-triage requests a client
	// may make per minute (0 = 60).
	RateLimit int
}

type identityKey struct{}

// identity returns the signed-in user, or "".
func identity(ctx context.Context) string {
	id, _ := ctx.Value(identityKey{}).(string)
	return id
}

// Allowed reports whether an identity is on the allow-list. It is the one
// rule for the web pages and for the MCP tools.
func (a Access) Allowed(id string) bool {
	if a.Header == "" {
		return true
	}
	if id == "" {
		return false
	}
	if len(a.Users) == 0 && len(a.Domains) == 0 {
		return true
	}
	id = strings.ToLower(id)
	for _, u := range a.Users {
		if strings.ToLower(u) == id {
			return true
		}
	}
	if at := strings.LastIndexByte(id, '@'); at >= 0 {
		dom := id[at+1:]
		for _, d := range a.Domains {
			if strings.ToLower(strings.TrimPrefix(d, "@")) == dom {
				return true
			}
		}
	}
	return false
}

// publicPaths answer without identity: probes and scrapes come from the
// cluster, not through the sign-in proxy.
func publicPath(p string) bool {
	return p == "/healthz" || p == "/readyz" || p == "/metrics" || strings.HasPrefix(p, "/static/")
}

// withAccess reads the identity header and enforces the read policy.
func (s *Server) withAccess(next http.Handler) http.Handler {
	a := s.access
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.Header == "" || publicPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		id := strings.TrimSpace(r.Header.Get(a.Header))
		if id == "" {
			s.adapt(func(http.ResponseWriter, *http.Request) error {
				return &httpError{http.StatusUnauthorized, "sign in first: this portal expects the " + a.Header + " header from its sign-in proxy"}
			})(w, r)
			return
		}
		if a.RestrictReads && !a.Allowed(id) {
			s.adapt(func(http.ResponseWriter, *http.Request) error {
				return &httpError{http.StatusForbidden, id + " is not allowed to use this portal"}
			})(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), identityKey{}, id)))
	})
}

// requireTriageAccess guards live-cluster reads: only allow-listed users.
func (s *Server) requireTriageAccess(r *http.Request) error {
	if !s.access.Allowed(identity(r.Context())) {
		return &httpError{http.StatusForbidden, "live triage is limited to allow-listed users"}
	}
	return nil
}

// Limiter is a per-client token bucket for the expensive endpoints (classify
// and live triage), shared by the web pages and the MCP tools.
type Limiter = limiter

// NewLimiter allows perMin requests per client per minute (0 = 60).
func NewLimiter(perMin int) *Limiter { return newLimiter(perMin) }

// Allow reports whether client key may make a request now.
func (l *limiter) Allow(key string, now time.Time) bool { return l.allow(key, now) }

// PerMinute is the configured rate.
func (l *limiter) PerMinute() int { return l.perMin }

// limiter is a per-client token bucket for the expensive endpoints.
type limiter struct {
	mu      sync.Mutex
	perMin  int
	clients map[string]*clientLimit
}

type clientLimit struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(perMin int) *limiter {
	if perMin <= 0 {
		perMin = 60
	}
	return &limiter{perMin: perMin, clients: map[string]*clientLimit{}}
}

func (l *limiter) allow(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.clients[key]
	if !ok {
		if len(l.clients) > 10000 { // forget idle clients so the map stays bounded
			for k, v := range l.clients {
				if now.Sub(v.seen) > 10*time.Minute {
					delete(l.clients, k)
				}
			}
		}
		c = &clientLimit{lim: rate.NewLimiter(rate.Limit(float64(l.perMin)/60), max(1, l.perMin/6))}
		l.clients[key] = c
	}
	c.seen = now
	return c.lim.AllowN(now, 1)
}

func clientKey(r *http.Request) string {
	if id := identity(r.Context()); id != "" {
		return "id:" + id
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// rateLimited wraps an expensive handler with the per-client limit.
func (s *Server) rateLimited(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.limiter.allow(clientKey(r), time.Now()) {
			w.Header().Set("Retry-After", strconv.Itoa(max(1, 60/s.limiter.perMin)))
			return &httpError{http.StatusTooManyRequests, "too many requests; slow down"}
		}
		return h(w, r)
	}
}

// uploadLimit is the cap for routes that take a snapshot or inventory file,
// which grows with the cluster; the handlers check their own exact limits.
const uploadLimit = 32 << 20

func isUpload(r *http.Request) bool {
	return r.Method == http.MethodPost && (r.URL.Path == "/triage/snapshot" || strings.HasPrefix(r.URL.Path, "/gaps"))
}

// withMaxBody caps request bodies for every route; handlers that accept large
// pastes set their own, tighter limit, and uploads get uploadLimit.
func withMaxBody(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := n
			if isUpload(r) {
				n = uploadLimit
			}
			if r.ContentLength > n {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(http.StatusRequestEntityTooLarge)
				_, _ = w.Write([]byte(`{"error":"request body too large"}` + "\n"))
				return
			}
			if r.Body != nil {
				r.Body = http.MaxBytesReader(w, r.Body, n)
			}
			next.ServeHTTP(w, r)
		})
	}
}
