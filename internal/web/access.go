package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"casebook/internal/access"
	"casebook/internal/triage"
)

// identity returns the signed-in user, or "".
func identity(ctx context.Context) string { return access.IdentityFrom(ctx) }

// publicPaths answer without identity: probes and scrapes come from the
// cluster, not through the sign-in proxy.
func publicPath(p string) bool {
	return p == "/healthz" || p == "/readyz" || p == "/metrics" || strings.HasPrefix(p, "/static/")
}

// withAccess reads the identity header and enforces the read policy.
func (s *Server) withAccess(next http.Handler) http.Handler {
	a := s.policy
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.Header == "" || publicPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		// Answers depend on who asks (restricted layers, live triage): a
		// shared cache in front must not hand one reader's page to another.
		w.Header().Add("Vary", a.Header)
		id := strings.TrimSpace(r.Header.Get(a.Header))
		if id == "" {
			s.adapt(func(http.ResponseWriter, *http.Request) error {
				return userError(http.StatusUnauthorized, "error.sign_in", "header", a.Header)
			})(w, r)
			return
		}
		if a.RestrictReads && !a.Allowed(id) {
			s.adapt(func(http.ResponseWriter, *http.Request) error {
				return userError(http.StatusForbidden, "error.user_not_allowed", "id", id)
			})(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(access.WithIdentity(r.Context(), id)))
	})
}

// caller is who makes the request, for the access policy and the limiter.
func caller(r *http.Request) access.Caller {
	return access.Caller{Identity: identity(r.Context()), Addr: r.RemoteAddr}
}

// requireTriageAccess guards live-cluster reads: only allow-listed users.
func (s *Server) requireTriageAccess(r *http.Request) error {
	return s.policy.LiveTriage(caller(r))
}

// rateLimited wraps an expensive handler with the caller's budget in the
// portal's one limiter, which the MCP tools share.
func (s *Server) rateLimited(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := s.limiter.Take(caller(r), 1); err != nil {
			return err
		}
		return h(w, r)
	}
}

// uploadLimit is the cap for routes that take a snapshot or inventory file,
// which grows with the cluster; the handlers check their own exact limits.
const uploadLimit = 32 << 20

// charger returns the function that charges the caller of r, once, for
// the time since now: call it when the costly work is done, before the
// answer is written, so the caller's next request sees the debt.
func (s *Server) charger(r *http.Request) func() {
	who, start := caller(r), time.Now()
	var once sync.Once
	return func() { once.Do(func() { s.limiter.Charge(who, access.CostOf(time.Since(start))) }) }
}

// uploadBudget bounds the time one uploaded file may take to parse and
// check; a check still running then reports an error instead of a result.
const uploadBudget = 10 * time.Second

// tooLarge reports whether reading a body failed on its size limit.
func tooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

func isUpload(r *http.Request) bool {
	return r.Method == http.MethodPost && (r.URL.Path == "/triage/snapshot" || strings.HasPrefix(r.URL.Path, "/gaps"))
}

// pasteBodyLimit bounds the body of a paste form or a classify request. The
// paste itself may be 1 MiB; encoded as a form every byte can take three
// (%0A), and in JSON a control character six (\u001b), so the body may be
// that much larger; the handlers check the decoded text's size.
const pasteBodyLimit = 3*triage.MaxInput + 64<<10

func isPaste(r *http.Request) bool {
	return r.Method == http.MethodPost && (r.URL.Path == "/triage" || r.URL.Path == "/api/triage/classify")
}

// withMaxBody caps request bodies for every route; handlers that accept large
// pastes set their own, tighter limit, and uploads get uploadLimit.
func withMaxBody(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := n
			switch {
			case isUpload(r):
				n = uploadLimit
			case isPaste(r):
				n = pasteBodyLimit
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
