package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readyCounts returns the incident count /readyz reports.
func readyCounts(t *testing.T, s *hardServer) int {
	t.Helper()
	_, body := s.get(t, "/readyz")
	var r struct{ Incidents int }
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("readyz: %v: %s", err, body)
	}
	return r.Incidents
}

// searchWorks asserts the search index answers a query it must match.
func searchWorks(t *testing.T, s *hardServer) {
	t.Helper()
	status, body := s.get(t, "/api/search?q=libdcgm")
	if status != 200 || !strings.Contains(body, "IL-0171") {
		t.Errorf("search after recovery: %d %.300s", status, body)
	}
}

// damage applies f to every regular file under dir whose name matches.
func damage(t *testing.T, dir string, match func(rel string) bool, f func(path string)) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if match(rel) {
			f(p)
			n++
		}
		return nil
	})
	return n
}

// The read models are caches: deleted, truncated or scrambled while the
// server is stopped, they are rebuilt at the next start.
func TestDamagedDataIsRebuiltAtStart(t *testing.T) {
	isDB := func(rel string) bool { return strings.HasPrefix(rel, "casebook-") && strings.HasSuffix(rel, ".db") }
	isIndex := func(rel string) bool { return strings.Contains(rel, string(filepath.Separator)) }
	cases := []struct {
		name  string
		match func(string) bool
		act   func(t *testing.T) func(string)
	}{
		{"database deleted", isDB, func(t *testing.T) func(string) { return func(p string) { os.Remove(p) } }},
		{"database truncated", isDB, func(t *testing.T) func(string) { return func(p string) { os.Truncate(p, 512) } }},
		{"database scrambled", isDB, func(t *testing.T) func(string) {
			return func(p string) { os.WriteFile(p, []byte(strings.Repeat("not a database ", 400)), 0o644) }
		}},
		{"index deleted", isIndex, func(t *testing.T) func(string) { return func(p string) { os.Remove(p) } }},
		{"index truncated", isIndex, func(t *testing.T) func(string) { return func(p string) { os.Truncate(p, 7) } }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			s := hardStart(t, "--data", data)
			want := readyCounts(t, s)
			if err := s.stop(); err != nil {
				t.Fatalf("shutdown: %v", err)
			}
			if n := damage(t, data, tc.match, tc.act(t)); n == 0 {
				t.Fatalf("nothing to damage in %s", data)
			}
			s = hardStart(t, "--data", data)
			if got := readyCounts(t, s); got != want {
				t.Errorf("after recovery: %d incidents, want %d", got, want)
			}
			if status, body := s.get(t, "/api/incidents?component=gpu-driver"); status != 200 || !strings.Contains(body, "IL-0171") {
				t.Errorf("library query after recovery: %d %.200s", status, body)
			}
			searchWorks(t, s)
		})
	}
}

// A kill -9 at any moment of a cold build leaves a data folder that the next
// start recovers from.
func TestKillDuringBuildRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real server process")
	}
	bin := filepath.Join(t.TempDir(), "casebook")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := t.TempDir()
	for _, after := range []time.Duration{20 * time.Millisecond, 150 * time.Millisecond, 400 * time.Millisecond, 900 * time.Millisecond, 1600 * time.Millisecond} {
		cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--data", data)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		// Scribble a second library version's leftovers too: a build of
		// another hash that never finished.
	}
	s := hardStart(t, "--data", data)
	if got := readyCounts(t, s); got < 40 {
		t.Errorf("after kills: %d incidents", got)
	}
	searchWorks(t, s)
	entries, _ := os.ReadDir(data)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "casebook-tmp-") {
			t.Errorf("leftover of an interrupted build was not cleaned: %s", e.Name())
		}
	}
}
