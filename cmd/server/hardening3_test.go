package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"casebook/internal/access"
	"casebook/internal/inventory"
)

// A reader without access to the restricted layer: /metrics counts only
// the problems that reader is shown, /api/problems shows paths inside
// their layer (never the server's folders), the inventory upload asks
// for the identity live triage asks for, and a page's language links
// carry only the parameters pages read, bounded in length.
func TestRestrictedReaderSeesNoServerDetail(t *testing.T) {
	s, team := restrictedServer(t, "")
	// A problem only the team's layer has.
	write(t, filepath.Join(team, "incidents", "ACME-0003-broken.md"), "---\nid: ACME-0003\n---\n")
	if code, _ := s.get(t, "/readyz"); code != 200 {
		t.Fatal("not ready")
	}
	waitFor(t, func() bool {
		_, body := fetchAs(t, s, allowed, "/api/problems", nil)
		return strings.Contains(body, "ACME-0003")
	})

	var shown struct {
		Problems []struct {
			Path  string `json:"path"`
			Layer string `json:"layer"`
		} `json:"problems"`
	}
	_, body := fetchAs(t, s, other, "/api/problems", nil)
	if err := json.Unmarshal([]byte(body), &shown); err != nil {
		t.Fatal(err)
	}
	_, metrics := s.get(t, "/metrics")
	if want := fmt.Sprintf("casebook_library_problems %d\n", len(shown.Problems)); !strings.Contains(metrics, want) {
		t.Errorf("/metrics does not count what a reader without access sees (%d problems):\n%s", len(shown.Problems),
			regexp.MustCompile(`(?m)^casebook_library_problems.*$`).FindString(metrics))
	}

	_, body = fetchAs(t, s, allowed, "/api/problems", nil)
	if strings.Contains(body, team) || strings.Contains(body, `"path":"/`) {
		t.Errorf("/api/problems shows the server's folders:\n%.800s", body)
	}
	if !strings.Contains(body, `"path":"incidents/ACME-0003-broken.md"`) {
		t.Errorf("the team's problem is not shown inside its layer:\n%.800s", body)
	}

	if code, _ := uploadAs(t, s, other, []byte(`{}`)); code != http.StatusForbidden {
		t.Errorf("an upload by an identity not allowed live triage: %d, want 403", code)
	}

	junk := strings.Repeat("A", 900<<10)
	code, page := fetchAs(t, s, other, "/?q=gpu&junk="+junk, nil)
	if len(page) > 400<<10 || strings.Contains(page, "junk=") {
		t.Errorf("a 900 KiB query: %d, %d bytes, language links carry it: %v", code, len(page), strings.Contains(page, "junk="))
	}
	_, page = fetchAs(t, s, other, "/?q=gpu&junk=1", nil)
	if !strings.Contains(page, "q=gpu") || strings.Contains(page, "junk=1") {
		t.Error("language links: want the query kept and the unknown parameter dropped")
	}
}

// waitFor polls ok for up to a minute.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("condition not met in a minute")
}

// uploadAs posts file to /gaps as the identity id ("" for none).
func uploadAs(t *testing.T, s *hardServer, id string, file []byte) (int, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("inventory", "big.json")
	fw.Write(file)
	mw.Close()
	req, _ := http.NewRequest("POST", s.URL+"/gaps", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if id != "" {
		req.Header.Set("X-Forwarded-Email", id)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// Four concurrent uploads of a large inventory by one caller: the cost is
// reserved before the work, so at most access.MaxRunning run and the rest
// are refused with 429, and the Go heap grows by a bounded multiple of the
// file for each upload admitted. Before, all four were admitted and each
// held about 8 times the file. The heap, not the resident size, is
// measured: CI runs the tests with the race detector, whose shadow memory
// multiplies the resident size by a varying factor.
func TestConcurrentUploadsAreBounded(t *testing.T) {
	file := bigInventory(t, 16<<20)
	// The limit's burst covers every upload, so MaxRunning alone decides
	// how many run: with a smaller one, a slow machine paid the first
	// back before the last arrived and admitted uploads one after another.
	s := hardStart(t, "--data", t.TempDir(), "--rate-limit", "600")
	runtime.GC()
	debug.FreeOSMemory() // what earlier tests left is not counted as growth
	base := heapMiB()
	peak := base
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				peak = max(peak, heapMiB())
			}
		}
	}()
	codes := make([]int, 4)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = uploadAs(t, s, "", file)
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	ok, limited := 0, 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			limited++
		}
	}
	if ok < 1 || ok > access.MaxRunning || ok+limited != len(codes) {
		t.Errorf("statuses %v: want 1 to %d answered, the rest 429", codes, access.MaxRunning)
	}
	grew := peak - base
	t.Logf("file %d MiB, %d admitted, memory grew %d MiB (%d MiB per upload)", len(file)>>20, ok, grew, grew/max(1, ok))
	if limit := ok * 12 * len(file) >> 20; grew > limit {
		t.Errorf("memory grew %d MiB for %d uploads of %d MiB, want under %d MiB", grew, ok, len(file)>>20, limit)
	}
}

// bigInventory is the planted inventory with its pods repeated to about
// size bytes.
func bigInventory(t *testing.T, size int) []byte {
	t.Helper()
	f, err := os.Open(planted)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var one bytes.Buffer
	_ = inventory.Encode(&one, inv)
	n := len(inv.Pods)
	for i := 0; len(inv.Pods)*one.Len()/max(1, n) < 4*size; i++ {
		p := inv.Pods[i%n]
		p.Name = fmt.Sprintf("%s-%d", p.Name, i)
		inv.Pods = append(inv.Pods, p)
	}
	var out bytes.Buffer
	_ = inventory.Encode(&out, inv)
	return out.Bytes()
}

// heapMiB is the Go heap's objects, live and not yet swept, in MiB.
func heapMiB() int {
	m := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(m)
	return int(m[0].Value.Uint64() >> 20)
}

// A Host whose port part is not a port is refused rather than written into
// the feed's links, and the forwarded headers are believed only from a
// configured proxy (here the loopback address the test sends from).
func TestHostAndForwardedHeaders(t *testing.T) {
	s := hardStart(t, "--data", t.TempDir(), "--allowed-hosts", "casebook.example.com", "--trusted-proxies", "127.0.0.1")
	if code, body := s.request(t, "GET", "/feed.atom", "1.2.3.4:80,evil.com", "", nil); code != http.StatusMisdirectedRequest || strings.Contains(body, "evil.com/") {
		t.Errorf("Host 1.2.3.4:80,evil.com: %d\n%.300s", code, body)
	}
	h := http.Header{"Host": {"10.1.2.3:8080"}, "X-Forwarded-Proto": {"https"}, "X-Forwarded-Host": {"casebook.example.com"}}
	if code, body := s.send(t, "GET", "/feed.atom", h, "", nil); code != 200 || !strings.Contains(body, "<id>https://casebook.example.com/feed.atom</id>") {
		t.Errorf("from the proxy: %d\n%.300s", code, body)
	}
	h.Set("X-Forwarded-Host", "evil.com")
	if _, body := s.send(t, "GET", "/feed.atom", h, "", nil); strings.Contains(body, "evil.com") {
		t.Errorf("a forwarded host the portal does not answer to is written into links:\n%.300s", body)
	}
}
