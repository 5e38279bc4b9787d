package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
)

// logBuffer collects the server's log lines for a failing test's output.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestServerEndToEnd runs the whole server on port 0 against a library
// folder, then breaks a file in that folder while it serves.
func TestServerEndToEnd(t *testing.T) {
	lib, data := t.TempDir(), t.TempDir()
	copyDir(t, filepath.Join(fixtures, "good"), lib)
	logs := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", logs)
		}
	})

	cfg, err := parseServeConfig([]string{"--library", lib, "--data", data, "--addr", "127.0.0.1:0", "--shutdown-timeout", "5s"}, noEnv, logs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := newApp(ctx, cfg, logs)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	served := make(chan error, 1)
	go func() { served <- a.serve(ctx, ln) }()

	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp.StatusCode, string(body)
	}

	eventually(t, 20*time.Second, "/readyz answers 200", func() bool {
		code, _ := get("/readyz")
		return code == http.StatusOK
	})
	if code, body := get("/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	var ready struct{ Incidents, Playbooks int }
	_, body := get("/readyz")
	if err := json.Unmarshal([]byte(body), &ready); err != nil || ready.Incidents != 4 || ready.Playbooks != 2 {
		t.Errorf("/readyz = %s (%v), want 4 incidents and 2 playbooks", body, err)
	}

	goodCases := []string{"IL-9001", "IL-9002", "IL-9003", "IL-9004"}
	assertHome := func() {
		t.Helper()
		code, body := get("/")
		if code != http.StatusOK {
			t.Fatalf("GET / = %d:\n%s", code, body)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		doc.Find("[data-testid=case]").Each(func(_ int, s *goquery.Selection) {
			ids = append(ids, s.AttrOr("data-id", ""))
		})
		sort.Strings(ids)
		if diff := cmp.Diff(goodCases, ids); diff != "" {
			t.Errorf("cases on / (-want +got):\n%s", diff)
		}
		count := strings.Join(strings.Fields(doc.Find("[data-testid=countline]").Text()), " ")
		if !strings.HasPrefix(count, "1–4 of 4") {
			t.Errorf("count line = %q, want it to start with 1–4 of 4", count)
		}
	}
	assertHome()

	// A contributor saves a broken incident into the watched folder.
	broken, err := os.ReadFile(filepath.Join(fixtures, "broken", "incidents/IL-9107-unclosed-list.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "incidents/IL-9107-unclosed-list.md"), broken, 0o644); err != nil {
		t.Fatal(err)
	}
	type problem struct {
		Path    string `json:"path"`
		Line    int    `json:"line"`
		Message string `json:"message"`
	}
	want := problem{"incidents/IL-9107-unclosed-list.md", 7, "malformed front matter: line 7: did not find expected ',' or ']'"}
	eventually(t, 20*time.Second, "/api/problems reports the broken file", func() bool {
		var got struct{ Problems []problem }
		code, body := get("/api/problems")
		if code != http.StatusOK || json.Unmarshal([]byte(body), &got) != nil {
			return false
		}
		for _, p := range got.Problems {
			if p == want {
				return true
			}
		}
		return false
	})
	assertHome()

	// The taxonomy breaks: nothing loads, the previous library stays
	// served, and operators see the failure in /readyz, /api/problems, the
	// metric and the footer, until the file is fixed.
	taxPath := filepath.Join(lib, "taxonomy.yaml")
	goodTax, err := os.ReadFile(taxPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(taxPath, []byte("causes:\n  - id: a\n    aliases: [x, y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type reload struct {
		Status, Error string
		Problems      []string
	}
	eventually(t, 20*time.Second, "/readyz says the reload fails", func() bool {
		var got struct {
			Status string
			Reload *reload
		}
		code, body := get("/readyz")
		return code == http.StatusOK && json.Unmarshal([]byte(body), &got) == nil && got.Status == "ready" &&
			got.Reload != nil && got.Reload.Status == "failing" && strings.Contains(got.Reload.Error, "taxonomy.yaml:3")
	})
	var probs struct{ Reload *reload }
	if _, body := get("/api/problems"); json.Unmarshal([]byte(body), &probs) != nil || probs.Reload == nil ||
		len(probs.Reload.Problems) == 0 || !strings.HasPrefix(probs.Reload.Problems[0], "taxonomy.yaml:3:") {
		t.Errorf("/api/problems does not show the failing reload: %+v", probs.Reload)
	}
	if _, body := get("/metrics"); !strings.Contains(body, "casebook_library_reload_failing 1") {
		t.Error("/metrics lacks casebook_library_reload_failing 1")
	}
	if _, body := get("/"); !strings.Contains(body, `data-testid="reload-failed"`) {
		t.Error("the footer does not say the reload failed")
	}
	assertHome()
	if err := os.WriteFile(taxPath, goodTax, 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "/readyz no longer reports a failing reload", func() bool {
		_, body := get("/readyz")
		return !strings.Contains(body, `"reload"`)
	})
	if !strings.Contains(logs.String(), "library reload recovered") {
		t.Error("no log line says the reload recovered")
	}
	if _, body := get("/metrics"); !strings.Contains(body, "casebook_library_reload_failing 0") {
		t.Error("/metrics still says the reload fails")
	}

	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve returned %v after shutdown, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not return after the context was cancelled")
	}
	if _, err := client.Get(base + "/healthz"); err == nil {
		t.Error("the server still answers after shutdown")
	}
}

// eventually polls cond until it holds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
