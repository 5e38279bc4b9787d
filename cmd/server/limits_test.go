package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// do sends one request as the signed-in user id (none when empty) and
// returns the status and body.
func (s *hardServer) do(t *testing.T, method, path, id, ctype string, body []byte) (int, string) {
	t.Helper()
	h := http.Header{}
	if id != "" {
		h.Set("X-Forwarded-Email", id)
	}
	return s.send(t, method, path, h, ctype, body)
}

func mcpCall(id int, tool string, args map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return b
}

// Searches pass through the one limiter: free while the caller is not in
// debt, charged for their time. A caller who has spent the budget on a
// classify is refused a search on the page, the API, the search graph and
// the MCP tool alike; the identity is one key whatever its casing and
// door, and another caller is not held up.
func TestSearchSharesTheLimit(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--rate-limit", "6", "--auth-header", "X-Forwarded-Email")
	const ops = "Ops@Example.com"
	// The burst at 6 a minute is one request: this classify spends it.
	if code, body := s.do(t, "POST", "/api/triage/classify", " "+ops+" ", "application/json", []byte(`{"text":"OOMKilled"}`)); code != http.StatusOK {
		t.Fatalf("classify: %d %.200s", code, body)
	}
	for _, path := range []string{"/search?q=gpu", "/api/search?q=gpu", "/api/graph?q=gpu"} {
		if code, body := s.do(t, "GET", path, "OPS@example.com", "", nil); code != http.StatusTooManyRequests || !strings.Contains(body, "too many requests") {
			t.Errorf("%s with the budget spent: %d %.200s, want 429", path, code, body)
		}
	}
	code, body := s.do(t, "POST", "/mcp", "ops@EXAMPLE.com", "application/json",
		mcpCall(1, "search_incidents", map[string]any{"query": "gpu"}))
	if code != http.StatusOK || !strings.Contains(body, "too many requests") {
		t.Errorf("search_incidents over MCP with the budget spent: %d %.300s, want the rate limit", code, body)
	}
	if code, body := s.do(t, "GET", "/api/search?q=gpu", "other@example.com", "", nil); code != http.StatusOK {
		t.Errorf("another caller: %d %.200s, want 200", code, body)
	}
}

// A batch of search calls is capped like any other and each call in it
// goes through the limiter: a batch at the cap from a caller with a full
// budget answers the first call and refuses the rest once the budget is
// spent, never running all of them.
func TestMCPSearchBatchIsMetered(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--rate-limit", "6")
	// A classify leaves the caller with nothing: every search in the
	// batch is refused.
	if code, _ := s.do(t, "POST", "/api/triage/classify", "", "application/json", []byte(`{"text":"OOMKilled"}`)); code != http.StatusOK {
		t.Fatalf("classify: %d", code)
	}
	var calls [][]byte
	for i := range 8 {
		calls = append(calls, mcpCall(i+1, "search_incidents", map[string]any{"query": "gpu driver xid nccl timeout"}))
	}
	code, body := s.do(t, "POST", "/mcp", "", "application/json", []byte("["+string(bytes.Join(calls, []byte(",")))+"]"))
	if n := strings.Count(body, "too many requests"); code != http.StatusOK || n != 8 {
		t.Errorf("a batch of 8 searches with the budget spent: %d, %d refused, want 8:\n%.400s", code, n, body)
	}
	calls = append(calls, calls[0])
	if code, body := s.do(t, "POST", "/mcp", "", "application/json", []byte("["+string(bytes.Join(calls, []byte(",")))+"]")); code != http.StatusBadRequest || !strings.Contains(body, "at most 8") {
		t.Errorf("a batch of 9 searches: %d %.200s, want 400 naming the cap", code, body)
	}
}

// Live triage without a sign-in header is refused at start unless the
// operator says explicitly that anyone may read the cluster; the allowed
// hosts default to the listen address's name and localhost, come from the
// environment like every flag, and take in --public-url's host.
func TestServeConfigGuards(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		hosts   []string
	}{
		{name: "kubeconfig without auth header", args: []string{"--kubeconfig", "kc"},
			wantErr: "--insecure-allow-anonymous-live-triage"},
		{name: "in-cluster without auth header", args: []string{"--in-cluster"},
			wantErr: "needs --auth-header"},
		{name: "kubeconfig with auth header", args: []string{"--kubeconfig", "kc", "--auth-header", "X-Email"},
			hosts: []string{"localhost"}},
		{name: "anonymous on purpose", args: []string{"--kubeconfig", "kc", "--insecure-allow-anonymous-live-triage"},
			hosts: []string{"localhost"}},
		{name: "anonymous on purpose from the environment", env: map[string]string{"CASEBOOK_KUBECONFIG": "kc",
			"CASEBOOK_INSECURE_ALLOW_ANONYMOUS_LIVE_TRIAGE": "true"}, hosts: []string{"localhost"}},
		{name: "named listen address", args: []string{"--addr", "casebook.internal:8080"},
			hosts: []string{"localhost", "casebook.internal"}},
		{name: "wildcard listen address", args: []string{"--addr", "0.0.0.0:8080"}, hosts: []string{"localhost"}},
		{name: "hosts from the environment", env: map[string]string{"CASEBOOK_ALLOWED_HOSTS": "casebook.example.com, *.corp.example"},
			hosts: []string{"casebook.example.com", "*.corp.example"}},
		{name: "public URL's host", args: []string{"--allowed-hosts", "a.example", "--public-url", "https://casebook.example.com/"},
			hosts: []string{"a.example", "casebook.example.com"}},
		{name: "public URL with a query", args: []string{"--public-url", "https://casebook.example.com/?x=1"}, wantErr: "--public-url"},
		{name: "public URL without scheme", args: []string{"--public-url", "casebook.example.com"}, wantErr: "--public-url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseServeConfig(append(tc.args, "--data", t.TempDir()), func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := allowedHosts(c); !slices.Equal(got, tc.hosts) {
				t.Errorf("allowed hosts %q, want %q", got, tc.hosts)
			}
		})
	}
}
