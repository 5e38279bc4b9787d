package replicas

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"casebook/internal/bench"
)

// Two replicas on one git-synced library, behind a balancer, under load,
// while two commits are published: one adds an incident, the next breaks
// the layer's layer.yaml. No request fails; both replicas reach each
// commit's library within reloadBound and name it in X-Library-Version and
// /readyz; for the same version they answer byte for byte the same; the
// broken commit leaves the previous commit's entries serving on both and
// is listed in /api/problems on both.
//
// The load runs from the first swap to the last check (about 20 s on a
// quiet two-core machine: three cold builds of the read models per replica,
// a few seconds of load between the steps), long enough for thousands of
// requests to cross every swap and short enough for make test.
func TestTwoReplicasFollowTheLibraryUnderLoad(t *testing.T) {
	bin := serverBinary(t)
	gs := newGitSync(t)
	gs.publish(t, nil)
	a := startReplica(t, bin, gs.layer(), t.TempDir())
	b := startReplica(t, bin, gs.layer(), t.TempDir())
	replicas := []*bench.Server{a, b}
	lb := newBalancer(t, a.Addr, b.Addr)

	first := sameVersion(t, replicas, "", "the first commit")
	load := startLoad(t, lb.srv.URL, 8, 5*time.Minute)
	time.Sleep(3 * time.Second)

	// Commit 2 adds TEAM-0002: both replicas reach a new version that has it.
	gs.publish(t, addIncident("wombatfixture"))
	swapped := time.Now()
	second := sameVersion(t, replicas, first, "the commit adding TEAM-0002")
	t.Logf("commit 2 served by both replicas %s after the swap (bound %s)", time.Since(swapped).Round(time.Millisecond), reloadBound)
	for _, s := range replicas {
		if a, err := get(s.Addr, "/api/incidents/TEAM-0002"); err != nil || a.status != 200 || a.version != second {
			t.Errorf("%s: TEAM-0002 = %d under %.12s (%v), want 200 under %.12s", s.Addr, a.status, a.version, err, second)
		}
	}
	identical(t, replicas, second)
	time.Sleep(3 * time.Second)

	// Commit 3 breaks layer.yaml: the layer's previous version (commit 2)
	// keeps serving on both, and both list the problem.
	gs.publish(t, func(dir string) {
		addIncident("wombatfixture")(dir)
		mustWrite(t, dir+"/layer.yaml", "name: [team\n")
	})
	swapped = time.Now()
	broken := sameVersion(t, replicas, second, "the commit breaking layer.yaml")
	t.Logf("commit 3 (broken) reported by both replicas %s after the swap", time.Since(swapped).Round(time.Millisecond))
	for _, s := range replicas {
		if !listsProblem(s.Addr, "layer.yaml", "previous version keeps serving") {
			t.Errorf("%s: /api/problems does not list the broken layer.yaml", s.Addr)
		}
		for _, path := range []string{"/api/incidents/TEAM-0001", "/api/incidents/TEAM-0002"} {
			if a, _ := get(s.Addr, path); a.status != 200 {
				t.Errorf("%s: %s = %d after the broken commit, want the previous commit's entry (200)", s.Addr, path, a.status)
			}
		}
		if a, _ := get(s.Addr, "/api/search?q=wombatfixture"); !bytes.Contains(a.body, []byte("TEAM-0002")) {
			t.Errorf("%s: the previous commit's incident is not found by search after the broken commit: %.200s", s.Addr, a.body)
		}
	}
	identical(t, replicas, broken)
	time.Sleep(2 * time.Second)

	run := load.stop(t)
	t.Logf("load: %d requests in %s (%v), %d failed, %.0f req/s, p99 %v; balancer: %d unreachable, %d with no ready replica; per replica %d and %d",
		run.Requests, run.Elapsed.Round(time.Second), run.Status, run.Errors, run.RPS, run.Latency.P99, lb.failed.Load(), lb.unready.Load(),
		lb.backends[0].served.Load(), lb.backends[1].served.Load())
	if run.Errors > 0 || lb.failed.Load() > 0 || lb.unready.Load() > 0 {
		t.Errorf("%d of %d requests failed (status %v)", run.Errors, run.Requests, run.Status)
	}
	for i, be := range lb.backends {
		if be.served.Load() == 0 {
			t.Errorf("replica %d got no traffic", i)
		}
	}
}

// sameVersion waits until every replica is ready, names one library
// version in /readyz other than old, and serves under it; it returns it.
func sameVersion(t *testing.T, replicas []*bench.Server, old, what string) string {
	t.Helper()
	var v string
	eventually(t, reloadBound, "both replicas serve "+what, func() bool {
		v = ""
		for _, s := range replicas {
			r := readiness(s.Addr)
			if r.code != http.StatusOK || r.Hash == "" || r.Hash == old || (v != "" && r.Hash != v) {
				return false
			}
			v = r.Hash
		}
		return true
	})
	return v
}

// identical asks every replica the same questions (the search API over the
// query mix, the problems, an incident, the list) and wants the same bytes
// from each, all under version.
func identical(t *testing.T, replicas []*bench.Server, version string) {
	t.Helper()
	paths := []string{"/api/problems", "/api/incidents/TEAM-0001", "/api/incidents?per_page=50", "/api/search?q=quokkafixture"}
	for _, q := range bench.Mix() {
		paths = append(paths, "/api/search?"+q.URLQuery())
	}
	for _, p := range paths {
		var first answer
		for i, s := range replicas {
			a, err := get(s.Addr, p)
			if err != nil || a.status != 200 || a.version != version {
				t.Errorf("%s%s: %d under %.12s (%v), want 200 under %.12s", s.Addr, p, a.status, a.version, err, version)
				continue
			}
			if i == 0 {
				first = a
			} else if !bytes.Equal(a.body, first.body) {
				t.Errorf("%s differs between replicas of version %.12s:\n%.300s\n%.300s", p, version, first.body, a.body)
			}
		}
	}
}

// listsProblem reports whether /api/problems lists a problem of file
// whose message says says.
func listsProblem(base, file, says string) bool {
	a, err := get(base, "/api/problems")
	if err != nil {
		return false
	}
	var body struct {
		Problems []struct{ Path, Message string }
	}
	_ = json.Unmarshal(a.body, &body)
	for _, p := range body.Problems {
		if strings.HasSuffix(p.Path, file) && strings.Contains(p.Message, says) {
			return true
		}
	}
	return false
}
