package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// hardServer is a whole Casebook server on a loopback port, started through
// the same wiring as `casebook serve`.
type hardServer struct {
	URL  string
	stop func() error
}

func hardStart(t *testing.T, args ...string) *hardServer {
	t.Helper()
	return hardStartEnv(t, func(string) string { return "" }, args...)
}

// hardStartEnv is hardStart with an environment, as a container gets it.
// readyBound is how long a test waits for a server to load the library.
const readyBound = 5 * time.Minute

func hardStartEnv(t *testing.T, getenv func(string) string, args ...string) *hardServer {
	t.Helper()
	return hardStartWith(t, getenv, io.Discard, args...)
}

// hardStartWith is hardStartEnv writing the server's log to logw.
func hardStartWith(t *testing.T, getenv func(string) string, logw io.Writer, args ...string) *hardServer {
	t.Helper()
	cfg, err := parseServeConfig(args, getenv, logw)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := newApp(ctx, cfg, logw)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.serve(ctx, ln) }()
	var once sync.Once
	var stopErr error
	s := &hardServer{URL: "http://" + ln.Addr().String(), stop: func() error {
		once.Do(func() { cancel(); stopErr = <-done })
		return stopErr
	}}
	t.Cleanup(func() { _ = s.stop() })
	// A bound, not a timing assertion: a cold load of the embedded library
	// under -race took over a minute at load 20 on two cores.
	deadline := time.Now().Add(readyBound)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		select {
		case err := <-done:
			t.Fatalf("server exited before ready: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("server not ready in %s", readyBound)
	return nil
}

func (s *hardServer) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// hardLibrary copies the shipped library into a temp folder.
func hardLibrary(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "library")
	err := filepath.WalkDir("../../library", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../../library", p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

const xssIncident = `---
id: IL-9990
title: "<script>alert('title')</script> Hostile <img src=x onerror=alert(1)>"
summary: "Summary with <script>alert('summary')</script> and \"><svg onload=alert(2)>"
organization: "<b onmouseover=alert(3)>Evil Org</b>"
date: 2024-01-02
domains: [kubernetes]
components: [kubelet]
causes: [software-bug]
symptoms: [crashloop]
trigger: "<script>alert('trigger')</script>"
detection: "<iframe src=javascript:alert(4)>"
sources:
  - url: https://example.com/postmortem
    title: "<script>alert('source')</script>"
    kind: postmortem
---

## Symptom

<script>alert('body')</script> Raw HTML must not render. [click](javascript:alert(5)) <img src=x onerror=alert(6)>

## Trigger

t

## Detection

d

## Response

- r

## Follow-ups

- f

## Lessons

l
`

// Hostile content and query strings must come out as text, never markup.
func TestHostileInputIsEscaped(t *testing.T) {
	lib := hardLibrary(t)
	if err := os.WriteFile(filepath.Join(lib, "incidents", "IL-9990-hostile.md"), []byte(xssIncident), 0o644); err != nil {
		t.Fatal(err)
	}
	s := hardStart(t, "--library", lib, "--data", t.TempDir())
	paths := []string{
		"/", "/incidents/IL-9990", "/?org=" + url.QueryEscape("<b onmouseover=alert(3)>Evil Org</b>"), "/causes", "/terms/component/kubelet",
		"/search?q=" + url.QueryEscape(`<script>alert(1)</script>"><img src=x onerror=alert(1)>`),
		"/search?q=Hostile", "/graph", "/feed.atom",
		"/triage?tree=" + url.QueryEscape("<script>"),
	}
	for _, p := range paths {
		status, body := s.get(t, p)
		if status >= 500 {
			t.Errorf("%s: status %d", p, status)
			continue
		}
		if p == "/feed.atom" {
			if strings.Contains(body, "<script>") {
				t.Errorf("%s: raw <script> in the feed", p)
			}
			continue
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		doc.Find("script").Each(func(_ int, sel *goquery.Selection) {
			if src, _ := sel.Attr("src"); src == "" || strings.Contains(sel.Text(), "alert") {
				t.Errorf("%s: an inline or injected <script> element: %q", p, sel.Text())
			}
		})
		doc.Find("*").Each(func(_ int, sel *goquery.Selection) {
			for _, attr := range []string{"onerror", "onload", "onmouseover"} {
				if _, ok := sel.Attr(attr); ok {
					t.Errorf("%s: element <%s> carries %s", p, goquery.NodeName(sel), attr)
				}
			}
			if href, ok := sel.Attr("href"); ok && strings.HasPrefix(strings.ToLower(strings.TrimSpace(href)), "javascript:") {
				t.Errorf("%s: javascript: link survived", p)
			}
			if name := goquery.NodeName(sel); name == "iframe" || name == "svg" {
				t.Errorf("%s: injected <%s>", p, name)
			}
		})
	}
	// The hostile text is still shown, as text.
	_, body := s.get(t, "/incidents/IL-9990")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	if h1 := doc.Find("h1").Text(); !strings.Contains(h1, "<script>alert('title')</script>") {
		t.Errorf("title should be shown escaped as text, got %q", h1)
	}
}

func TestPathTraversalIsNotFound(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir())
	for _, p := range []string{
		"/static/../../go.mod", "/static/%2e%2e/%2e%2e/go.mod", "/static/..%2f..%2fgo.mod", "/static/css/../../../../etc/passwd",
		"/static/", "/static/css/", "/incidents/..%2f..%2fetc%2fpasswd", "/incidents/../../etc/passwd",
		"/playbooks/..%2f..%2fREADME", "/playbooks/../../../etc/passwd", "/terms/..%2f../x", "/terms/component/..%2f..%2fgo.mod",
		"/api/incidents/..%2f..%2fgo.mod", "/api/playbooks/%2e%2e%2ftaxonomy",
	} {
		req, _ := http.NewRequest("GET", s.URL+p, nil)
		req.URL.Opaque = p // send the path exactly as written
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusMovedPermanently {
			t.Errorf("%s: status %d, want 404", p, resp.StatusCode)
		}
		if bytes.Contains(body, []byte("module casebook")) || bytes.Contains(body, []byte("root:x:0:0")) {
			t.Errorf("%s: leaked a file outside the site", p)
		}
	}
}

func TestOversizedAndBadRequests(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir())
	big := bytes.Repeat([]byte("Insufficient nvidia.com/gpu\n"), (2<<20)/28+10)
	cases := []struct {
		name, method, path, ctype string
		body                      []byte
		want                      int
	}{
		{"classify over 1 MiB", "POST", "/api/triage/classify", "text/plain", big[:(1<<20)+100], 413},
		{"any body over 2 MiB", "POST", "/api/triage/classify", "text/plain", big, 413},
		{"paste form over 1 MiB", "POST", "/triage", "application/x-www-form-urlencoded", append([]byte("text="), big[:(1<<20)+100]...), 413},
		{"empty classify", "POST", "/api/triage/classify", "text/plain", nil, 400},
		{"bad JSON classify", "POST", "/api/triage/classify", "application/json", []byte(`{"text":`), 400},
		{"unknown filter", "GET", "/api/incidents?component=nope", "", nil, 400},
		{"unknown org", "GET", "/api/incidents?org=nobody-at-all", "", nil, 400},
		{"bad year", "GET", "/api/incidents?year=19x", "", nil, 400},
		{"bad page", "GET", "/api/incidents?page=-1", "", nil, 400},
		{"bad per_page", "GET", "/api/incidents?per_page=100000", "", nil, 400},
		{"bad sort", "GET", "/?sort=random", "", nil, 400},
		{"bad focus", "GET", "/api/graph?focus=nope", "", nil, 400},
		{"unclosed quote", "GET", "/api/search?q=%22unclosed", "", nil, 200},
		{"bad kind", "GET", "/api/search?kind=secret", "", nil, 400},
		{"bad triage state", "GET", "/triage?tree=pending&a=nope%3Dnope", "", nil, 400},
		{"unknown incident", "GET", "/api/incidents/IL-0000", "", nil, 404},
		{"wrong method", "DELETE", "/api/incidents", "", nil, 405},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, s.URL+tc.path, bytes.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if tc.want == 200 && resp.StatusCode >= 500 || tc.want != 200 && resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.want, b)
			}
			if resp.StatusCode >= 400 && strings.HasPrefix(tc.path, "/api/") && !bytes.Contains(b, []byte(`"error"`)) {
				t.Errorf("API error without a JSON error message: %s", b)
			}
		})
	}
}

func TestCrossOriginPostIsRefused(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir())
	req, _ := http.NewRequest("POST", s.URL+"/triage", strings.NewReader("text=OOMKilled"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site POST: status %d, want 403", resp.StatusCode)
	}
}

func TestSecurityHeaders(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir())
	resp, err := http.Get(s.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "frame-ancestors 'none'", "script-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP allows unsafe sources: %q", csp)
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") == "" {
		t.Errorf("missing nosniff or Referrer-Policy: %v", resp.Header)
	}
}

func TestAuthHeaderAndAllowList(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--auth-header", "X-Forwarded-Email", "--allow-domains", "example.com", "--rate-limit", "6")
	do := func(method, path, email string, body string) int {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if email != "" {
			req.Header.Set("X-Forwarded-Email", email)
		}
		if body != "" {
			req.Header.Set("Content-Type", "text/plain")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := do("GET", "/", "", ""); got != 401 {
		t.Errorf("no identity: %d, want 401", got)
	}
	if got := do("GET", "/healthz", "", ""); got != 200 {
		t.Errorf("healthz without identity: %d, want 200", got)
	}
	if got := do("GET", "/metrics", "", ""); got != 200 {
		t.Errorf("metrics without identity: %d, want 200", got)
	}
	if got := do("GET", "/", "someone@other.org", ""); got != 200 {
		t.Errorf("any signed-in user may read: %d, want 200", got)
	}
	// The rate limit: 6 per minute with a burst of one, per identity.
	limited := false
	for i := 0; i < 5; i++ {
		if do("POST", "/api/triage/classify", "ops@example.com", "OOMKilled") == 429 {
			limited = true
		}
	}
	if !limited {
		t.Error("five quick classify calls at 6/min were never limited")
	}
	if got := do("POST", "/api/triage/classify", "other@example.com", "OOMKilled"); got != 200 {
		t.Errorf("another client is not limited by the first: %d", got)
	}
}

func TestMetricsExposeRequestsAndLoads(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir())
	s.get(t, "/incidents/IL-0011")
	s.get(t, "/api/incidents?component=gpu-driver")
	_, body := s.get(t, "/metrics")
	for _, want := range []string{
		`casebook_http_requests_total{code="200",method="GET",route="/incidents/{id}"}`,
		`casebook_http_request_duration_seconds_bucket{method="GET",route="/api/incidents"`,
		`casebook_library_load_duration_seconds_count 1`,
		`casebook_library_problems 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// writeKubeconfig points a kubeconfig at server, with a token that must
// never show up in a page or a log.
func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	kc := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + server + "\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: SECRET-TOKEN-DO-NOT-SHOW\n"
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A cluster API that is down, slower than the timeout, or refusing (403)
// turns live triage into the ordinary questions within the timeout.
func TestDeadClusterDegradesToQuestions(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := ln.Addr().String()
	ln.Close() // nothing listens here now

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	defer slow.Close()
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"llm-0\" is forbidden: User \"system:serviceaccount:casebook:casebook\" cannot get resource \"pods\"","reason":"Forbidden","code":403}`)
	}))
	defer forbidden.Close()

	for name, server := range map[string]string{"down": "http://" + deadAddr, "slow": slow.URL, "forbidden": forbidden.URL} {
		t.Run(name, func(t *testing.T) {
			s := hardStart(t, "--data", t.TempDir(), "--kubeconfig", writeKubeconfig(t, server), "--cluster-timeout", "2s", "--insecure-allow-anonymous-live-triage")
			start := time.Now()
			status, body := s.get(t, "/triage/cluster?namespace=team-a&pod=llm-0")
			took := time.Since(start)
			if took > 20*time.Second {
				t.Errorf("the page took %v with a 2s cluster timeout", took)
			}
			if strings.Contains(body, "SECRET-TOKEN") {
				t.Fatal("the page shows the kubeconfig token")
			}
			doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
			switch {
			case status == 200 && doc.Find(`[data-testid="question"], [data-testid="start"]`).Length() > 0:
				// Degraded to questions, with a notice of what failed.
				if !strings.Contains(doc.Find(".banner").Text(), "ould not read") {
					t.Errorf("no notice of what could not be read: %q", doc.Find(".banner").Text())
				}
			default:
				t.Errorf("status %d without questions: %.300s", status, doc.Find("main").Text())
			}
		})
	}
}
