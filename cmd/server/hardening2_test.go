package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"casebook/internal/inventory"
	"casebook/internal/triage"
)

// request sends one request to s with the given Host header.
func (s *hardServer) request(t *testing.T, method, path, host, ctype string, body []byte) (int, string) {
	t.Helper()
	h := http.Header{}
	if host != "" {
		h.Set("Host", host)
	}
	return s.send(t, method, path, h, ctype, body)
}

// send sends one request to s with the headers h (a "Host" entry sets the
// Host the server sees) and returns the status and body. A POST to /mcp
// accepts both answers the streamable transport may give.
func (s *hardServer) send(t *testing.T, method, path string, h http.Header, ctype string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k := range h {
		if k == "Host" {
			req.Host = h.Get(k)
			continue
		}
		req.Header.Set(k, h.Get(k))
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if method == http.MethodPost && strings.HasPrefix(path, "/mcp") {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const mcpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// A page on another site that rebinds its name to the portal's address
// sends that name as Host. Every route group refuses it, live triage
// included; the portal's own names and IP literals (probes, scrapes) are
// answered as the plain address is, /mcp included (the test reaches the
// loopback address, as a reverse proxy on the same machine does).
func TestDNSRebindingIsRefused(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--kubeconfig", unreachableKubeconfig(t), "--cluster-timeout", "2s",
		"--insecure-allow-anonymous-live-triage", "--allowed-hosts", "casebook.example.com", "--rate-limit", "6000")
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.URL, "http://"))
	routes := []struct {
		method, path, ctype string
		body                []byte
	}{
		{"GET", "/", "", nil},
		{"GET", "/incidents/IL-0011", "", nil},
		{"GET", "/search?q=gpu", "", nil},
		{"GET", "/api/incidents", "", nil},
		{"GET", "/api/problems", "", nil},
		{"POST", "/api/triage/classify", "application/json", []byte(`{"text":"OOMKilled"}`)},
		{"GET", "/triage/cluster?namespace=ml&pod=trainer-0", "", nil},
		{"GET", "/triage/cluster/snapshot.json?namespace=ml&pod=trainer-0", "", nil},
		{"GET", "/gaps", "", nil},
		{"GET", "/feed.atom", "", nil},
		{"POST", "/mcp", "application/json", []byte(mcpInit)},
		{"GET", "/metrics", "", nil},
		{"GET", "/healthz", "", nil},
		{"GET", "/readyz", "", nil},
		{"GET", "/static/css/app.css", "", nil},
		{"GET", "/no/such/page", "", nil},
	}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			code, body := s.request(t, rt.method, rt.path, "rebind.attacker.example:"+port, rt.ctype, rt.body)
			if code != http.StatusMisdirectedRequest || !strings.Contains(body, "--allowed-hosts") {
				t.Errorf("foreign Host: %d %.200q, want 421 naming --allowed-hosts", code, body)
			}
			want, _ := s.request(t, rt.method, rt.path, "", rt.ctype, rt.body)
			if want == http.StatusMisdirectedRequest || want == http.StatusForbidden {
				t.Fatalf("the listen address as Host: %d", want)
			}
			for _, host := range []string{"casebook.example.com", "CaseBook.Example.com:" + port, "10.1.2.3:" + port, "[::1]:" + port, "localhost:" + port} {
				if code, body := s.request(t, rt.method, rt.path, host, rt.ctype, rt.body); code != want {
					t.Errorf("Host %s: %d %.200q, want %d as with the listen address", host, code, body, want)
				}
			}
		})
	}
}

// Absolute links come from --public-url, never from the Host header.
func TestPublicURLMakesFeedLinks(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--public-url", "https://casebook.example.com/")
	code, body := s.request(t, "GET", "/feed.atom", "10.1.2.3:8080", "", nil)
	if code != 200 || !strings.Contains(body, `<id>https://casebook.example.com/feed.atom</id>`) || strings.Contains(body, "10.1.2.3") {
		t.Errorf("feed: %d\n%.600s", code, body)
	}
	if code, _ := s.request(t, "GET", "/", "casebook.example.com", "", nil); code != 200 {
		t.Errorf("the public URL's host is refused: %d", code)
	}
}

var seriesRE = regexp.MustCompile(`(?m)^casebook_http_request[^\s]*`)

// Made-up methods and random paths, with and without identity, cannot
// grow /metrics: every label is bounded.
func TestMetricsLabelsAreBounded(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--auth-header", "X-Forwarded-Email")
	random := func() string {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		return strings.ToUpper(hex.EncodeToString(b))
	}
	flood := func(n int) {
		for i := range n {
			req, _ := http.NewRequest(random(), s.URL+"/"+strings.ToLower(random())+"/"+random(), nil)
			if i%2 == 0 {
				req.Header.Set("X-Forwarded-Email", random()+"@example.com")
			}
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
	}
	series := func() int {
		_, body := s.request(t, "GET", "/metrics", "", "", nil)
		return len(seriesRE.FindAllString(body, -1))
	}
	flood(200)
	series() // the scrape itself is a request; count from the second one
	before := series()
	flood(300)
	if after := series(); after != before {
		t.Errorf("%d request series after 200 random requests, %d after 300 more: labels are not bounded", before, after)
	}
	_, body := s.request(t, "GET", "/metrics", "", "", nil)
	if !strings.Contains(body, `method="other"`) || !strings.Contains(body, `route="unmatched"`) {
		t.Errorf("random requests are not counted as method other, route unmatched")
	}
}

// classify_error over /mcp spends the same budget as the API; a JSON-RPC
// batch counts each call, and a batch of more than eight is refused.
func TestMCPSharesTheLimit(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--rate-limit", "6")
	call := func(id int) []byte {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": "classify_error", "arguments": map[string]any{"text": "OOMKilled"}}})
		return b
	}
	limited := func(body string) int { return strings.Count(body, "too many requests") }
	// One API call spends the burst of one; the MCP call that follows at
	// once is refused.
	if code, _ := s.request(t, "POST", "/api/triage/classify", "", "application/json", []byte(`{"text":"OOMKilled"}`)); code != 200 {
		t.Fatalf("first classify: %d", code)
	}
	if _, body := s.request(t, "POST", "/mcp", "", "application/json", call(1)); limited(body) != 1 {
		t.Errorf("classify_error right after the API's: %.300s, want the rate limit", body)
	}
	// Eight calls in one batch: each is admitted or refused on its own.
	batch := [][]byte{}
	for i := range 8 {
		batch = append(batch, call(10+i))
	}
	code, body := s.request(t, "POST", "/mcp", "", "application/json", []byte("["+string(bytes.Join(batch, []byte(",")))+"]"))
	if code != 200 || limited(body) != 8 {
		t.Errorf("batch of 8 with an empty budget: %d, %d refused, want 8:\n%.500s", code, limited(body), body)
	}
	code, body = s.request(t, "POST", "/mcp", "", "application/json", []byte("["+string(bytes.Join(append(batch, call(99)), []byte(",")))+"]"))
	if code != http.StatusBadRequest || !strings.Contains(body, "at most 8") {
		t.Errorf("batch of 9: %d %.300s, want 400 naming the cap", code, body)
	}
}

// A paste of a million bytes is within the 1 MiB limit, however much the
// form encoding inflates it (every newline is %0A).
func TestMillionBytePasteIsRead(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir())
	head := "  Warning  FailedScheduling  12s  default-scheduler  0/3 nodes are available: 3 Insufficient nvidia.com/gpu.\n"
	line := `{"ts":"2024-03-12T10:15:32.123Z","level":"info","logger":"k8s.io/client-go","msg":"watch: {\"kind\":\"Pod\"}"}` + "\n"
	paste := (head + strings.Repeat(line, 1_000_000/len(line)+1))[:1_000_000]
	form := url.Values{"text": {paste}}.Encode()
	if len(form) <= triage.MaxInput+64<<10 {
		t.Fatalf("the encoded form is only %d bytes; the test needs one past the old limit", len(form))
	}
	code, body := s.request(t, "POST", "/triage", "", "application/x-www-form-urlencoded", []byte(form))
	if code != http.StatusOK || !strings.Contains(body, "pending/insufficient-resources") || strings.Contains(body, "1 MiB") {
		t.Errorf("1,000,000-byte paste: %d %.300s", code, body)
	}
	js, _ := json.Marshal(map[string]string{"text": paste})
	if code, body := s.request(t, "POST", "/api/triage/classify", "", "application/json", js); code != http.StatusOK {
		t.Errorf("the same paste as JSON: %d %.300s", code, body)
	}
	over, _ := json.Marshal(map[string]string{"text": paste + strings.Repeat("x", 1<<20-1_000_000+1)})
	if code, _ := s.request(t, "POST", "/api/triage/classify", "", "application/json", over); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a text of 1 MiB and one byte: %d, want 413", code)
	}
}

// An upload past the limit is 413 even when it is chunked (no
// Content-Length to refuse it by up front).
func TestChunkedOversizedUploadIs413(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir())
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, _ := mw.CreateFormFile("inventory", "big.json")
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range 40 {
			if _, err := fw.Write(chunk); err != nil {
				break
			}
		}
		mw.Close()
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", s.URL+"/gaps", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	pr.CloseWithError(io.EOF)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("40 MB chunked inventory: %d, want 413", resp.StatusCode)
	}
}

// An upload is charged for the time it took: after a large inventory the
// caller waits longer than one request's worth.
func TestUploadCostIsCharged(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--rate-limit", "6")
	f, err := os.Open(planted)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; len(inv.Pods) < 5000; i++ {
		p := inv.Pods[i%len(inv.Pods)]
		p.Name = fmt.Sprintf("%s-%d", p.Name, i)
		inv.Pods = append(inv.Pods, p)
	}
	var file bytes.Buffer
	_ = inventory.Encode(&file, inv)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("inventory", "big.json")
	fw.Write(file.Bytes())
	mw.Close()
	req, _ := http.NewRequest("POST", s.URL+"/gaps", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("upload of %d bytes: %d", file.Len(), resp.StatusCode)
	}
	// One request at 6 a minute would be paid back in 10 s; the upload's
	// time is charged on top.
	req, _ = http.NewRequest("POST", s.URL+"/api/triage/classify", strings.NewReader("OOMKilled"))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != http.StatusTooManyRequests || wait <= 10 {
		t.Errorf("after a %d-byte upload: %d, Retry-After %d s; want 429 and longer than 10 s", file.Len(), resp.StatusCode, wait)
	}
}
