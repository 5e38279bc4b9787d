package web_test

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"casebook/internal/drill"
	"casebook/internal/metrics"
	"casebook/internal/web"
)

// TestPasteRedactedAtEveryDoor sends each secret of the redaction table
// (internal/answer/testdata/secrets.txt) inside a describe pod through the
// web's doors — the form post, the shared link with ?text=, the JSON API —
// and fails when the secret shows in a page, a share link, a JSON answer,
// the server's log (at debug level) or /metrics. The MCP door has its own
// case (internal/mcp, classify_error_redacts).
func TestPasteRedactedAtEveryDoor(t *testing.T) {
	newHandler(t) // loads the shared library
	var logs bytes.Buffer
	m := metrics.New()
	h := web.New(web.Deps{Content: shared.loader, Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Limiter: testLimiter(), Metrics: m, Drills: drill.NewService(os.DirFS("../../library"), nil)})
	for _, sec := range readSecrets(t) {
		t.Run(sec.name, func(t *testing.T) {
			paste := "Name:         vllm-0\nNamespace:    llm-serving\nContainers:\n  vllm:\n    Environment:\n" + sec.line + "\nEvents:\n  " + taintEvent
			form := url.Values{"text": {paste}}.Encode()
			for _, req := range []*http.Request{
				httptest.NewRequest(http.MethodPost, "/triage", strings.NewReader(form)),
				httptest.NewRequest(http.MethodGet, "/triage/paste?"+form+"&lang=ko", nil),
				httptest.NewRequest(http.MethodPost, "/api/triage/classify", strings.NewReader(paste)),
			} {
				if req.Method == http.MethodPost && req.URL.Path == "/triage" {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code == http.StatusSeeOther {
					// A link with the paste in the clear moves to its
					// redacted twin before any page echoes its address.
					loc := rec.Header().Get("Location")
					if strings.Contains(loc, sec.value) {
						t.Errorf("%s %s: the redirect carries the secret", req.Method, req.URL.Path)
					}
					rec = get(t, h, loc)
				}
				body := rec.Body.String()
				if rec.Code != http.StatusOK {
					t.Fatalf("%s %s: %d", req.Method, req.URL.Path, rec.Code)
				}
				if strings.Contains(body, sec.value) {
					t.Errorf("%s %s: the secret is in the answer", req.Method, req.URL.Path)
				}
				if req.URL.Path == "/api/triage/classify" {
					if !strings.Contains(body, `"redacted":`) || strings.Contains(body, `"redacted":0`) {
						t.Errorf("API: no redaction count in %.200s", body)
					}
					continue
				}
				if !strings.Contains(body, "[redacted]") || !strings.Contains(body, `data-testid="paste-redacted"`) {
					t.Errorf("%s %s: the page does not say what was redacted", req.Method, req.URL.Path)
				}
				link, carried := shareLink(t, body)
				if strings.Contains(link+carried, sec.value) {
					t.Errorf("%s %s: the share link carries the secret", req.Method, req.URL.Path)
				}
				// The link answers again with the same redacted text.
				if again := get(t, h, link).Body.String(); strings.Contains(again, sec.value) {
					t.Errorf("the shared page shows the secret")
				}
			}
			if strings.Contains(logs.String(), sec.value) {
				t.Errorf("the server log holds the secret")
			}
			rec := httptest.NewRecorder()
			m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			if strings.Contains(rec.Body.String(), sec.value) {
				t.Errorf("/metrics holds the secret")
			}
		})
	}
}

// shareLink is the page's "link to this result" and the paste it
// carries (deflated in z), inflated back.
func shareLink(t *testing.T, body string) (href, text string) {
	t.Helper()
	i := strings.Index(body, `data-share-url="`)
	if i < 0 {
		t.Fatal("no share link on the page")
	}
	href = body[i+len(`data-share-url="`):]
	href = strings.ReplaceAll(href[:strings.IndexByte(href, '"')], "&amp;", "&")
	u, err := url.Parse(href)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(u.Query().Get("z"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(flate.NewReader(bytes.NewReader(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return href, string(b)
}

type secretCase struct{ name, line, value string }

// readSecrets reads the redaction table shared by every door's test.
func readSecrets(t *testing.T) []secretCase {
	t.Helper()
	data, err := os.ReadFile("../answer/testdata/secrets.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []secretCase
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Split(l, "|"); len(f) == 3 && !strings.HasPrefix(l, "#") {
			out = append(out, secretCase{f[0], strings.ReplaceAll(f[1], `\n`, "\n"), f[2]})
		}
	}
	return out
}
