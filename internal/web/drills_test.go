package web_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The drill runner keeps the whole attempt in the URL: these tests walk
// one drill the way a browser would, following the redirects by hand.

func location(t *testing.T, h http.Handler, target string, want int) *url.URL {
	t.Helper()
	rec := get(t, h, target)
	if rec.Code != want {
		t.Fatalf("GET %s: status %d, want %d: %.300s", target, rec.Code, want, rec.Body.String())
	}
	u, err := url.Parse(rec.Header().Get("Location"))
	if err != nil || u.Path == "" {
		t.Fatalf("GET %s: Location %q", target, rec.Header().Get("Location"))
	}
	return u
}

func TestDrillList(t *testing.T) {
	h := newHandler(t)
	doc := page(t, h, "/drills", http.StatusOK)
	if n := doc.Find(`[data-testid="drill"]`).Length(); n < 1 {
		t.Fatalf("%d drills listed", n)
	}
	if doc.Find(`[data-testid="drill"][data-id="gpu-pool-taint"] a.drill-title`).AttrOr("href", "") != "/drills/gpu-pool-taint" {
		t.Error("gpu-pool-taint is not linked")
	}
	// The list must not give the answer away.
	if strings.Contains(doc.Find(`[data-testid="drills"]`).Text(), "pending/untolerated-taint") {
		t.Error("the list shows a drill's route")
	}
	ko := page(t, h, "/drills?lang=ko", http.StatusOK)
	if !strings.Contains(ko.Find(`[data-testid="drill"][data-id="gpu-pool-taint"]`).Text(), "새 GPU 노드 풀이 생긴 뒤") {
		t.Error("the Korean list has no Korean title")
	}
}

func TestDrillRun(t *testing.T) {
	h := newHandler(t)
	// Opening a drill starts its clock.
	start := location(t, h, "/drills/gpu-pool-taint", http.StatusSeeOther)
	ts, err := strconv.ParseInt(start.Query().Get("t"), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)) > time.Minute {
		t.Fatalf("start URL %s has no current start time", start)
	}
	// A command is run and appended to the state.
	q := start.Query()
	q.Set("cmd", "kubectl describe pod glue-finetune-4xk2p")
	next := location(t, h, "/drills/gpu-pool-taint?"+q.Encode(), http.StatusSeeOther)
	if got := next.Query()["c"]; len(got) != 1 || got[0] != "describe pod glue-finetune-4xk2p -n nlp-train" {
		t.Fatalf("state after one command: %v", got)
	}
	doc := page(t, h, next.RequestURI(), http.StatusOK)
	out := doc.Find(`[data-testid="step"] pre.out`).Text()
	if !strings.Contains(out, "2 node(s) had untolerated taint(s)") || !strings.Contains(out, "Controlled By:  Job/glue-finetune") {
		t.Errorf("describe pod output:\n%s", out)
	}
	// Both forms carry the state.
	for _, form := range []string{"cmd-form", "answer-form"} {
		if doc.Find(`[data-testid="`+form+`"] input[name="c"]`).AttrOr("value", "") != "describe pod glue-finetune-4xk2p -n nlp-train" {
			t.Errorf("%s does not carry the commands", form)
		}
		if doc.Find(`[data-testid="`+form+`"] input[name="t"]`).AttrOr("value", "") != start.Query().Get("t") {
			t.Errorf("%s does not carry the start time", form)
		}
	}
	// A write is refused in the terminal and not counted.
	q = next.Query()
	q.Set("cmd", "kubectl delete pod glue-finetune-4xk2p")
	doc = page(t, h, "/drills/gpu-pool-taint?"+q.Encode(), http.StatusOK)
	if msg := doc.Find(`[data-testid="cmd-error"]`).Text(); !strings.Contains(msg, "read-only") {
		t.Errorf("a write was not refused: %q", msg)
	}
	if n := doc.Find(`[data-testid="step"]`).Length(); n != 1 {
		t.Errorf("%d steps after a refused command, want 1", n)
	}
	// kubectl's own errors come back as kubectl prints them.
	q.Set("cmd", "kubectl get widgets")
	doc = page(t, h, "/drills/gpu-pool-taint?"+q.Encode(), http.StatusOK)
	if msg := doc.Find(`[data-testid="cmd-error"]`).Text(); !strings.Contains(msg, `the server doesn't have a resource type "widgets"`) {
		t.Errorf("unknown resource: %q", msg)
	}
}

func TestDrillDebrief(t *testing.T) {
	h := newHandler(t)
	t0 := strconv.FormatInt(time.Now().Add(-3*time.Minute).Unix(), 10)
	v := url.Values{"t": {t0}, "route": {"pending/resource-quota"}, "rec": {"Raise the quota."},
		"c": {"describe pod glue-finetune-4xk2p -n nlp-train", "get resourcequotas -n nlp-train"}}
	// The answer form sends the start time; the server counts the time and
	// redirects to a debrief URL that anyone can open.
	u := location(t, h, "/drills/gpu-pool-taint/debrief?"+v.Encode(), http.StatusSeeOther)
	if u.Query().Get("t") != "" || u.Query().Get("e") == "" {
		t.Fatalf("debrief URL %s", u)
	}
	if e, _ := strconv.Atoi(u.Query().Get("e")); e < 170 || e > 400 {
		t.Errorf("elapsed %d s for a drill started 3 minutes ago", e)
	}
	doc := page(t, h, u.RequestURI(), http.StatusOK)
	if got := doc.Find(`[data-testid="verdict"]`).AttrOr("data-verdict", ""); got != "decoy" {
		t.Errorf("verdict %q, want decoy", got)
	}
	if got := doc.Find(`[data-testid="expected-route"]`).Text(); got != "pending/untolerated-taint" {
		t.Errorf("expected route %q", got)
	}
	if n := doc.Find(`[data-testid="found"] li`).Length(); n != 1 {
		t.Errorf("%d evidence found, want 1", n)
	}
	if n := doc.Find(`[data-testid="missed"] li`).Length(); n != 1 {
		t.Errorf("%d evidence missed, want 1", n)
	}
	if href := doc.Find(`[data-testid="playbook-link"]`).AttrOr("href", ""); href != "/playbooks/pod-pending#cause-c-untolerated-taint" {
		t.Errorf("playbook link %q", href)
	}
	if !strings.Contains(doc.Find(`[data-testid="incidents"]`).Text(), "IL-0245") {
		t.Error("the incident the drill is modelled on is not linked")
	}
	if !strings.Contains(doc.Find(`[data-testid="probed"]`).Text(), "pending/untolerated-taint") {
		t.Error("the debrief does not say what live triage makes of the recording")
	}
	if got := doc.Find(`[data-testid="your-recovery"]`).Text(); got != "Raise the quota." {
		t.Errorf("recovery %q", got)
	}
}

func TestDrillBrief(t *testing.T) {
	h := newHandler(t)
	doc := page(t, h, "/drills/gpu-pool-taint/brief", http.StatusOK)
	if n := doc.Find(`[data-testid="hints"] li`).Length(); n < 2 {
		t.Errorf("%d hints", n)
	}
	if doc.Find(`[data-testid="decoy"]`).Length() != 1 || doc.Find(`[data-testid="expected-route"]`).Text() != "pending/untolerated-taint" {
		t.Error("the brief lacks the expected route or the decoy")
	}
	// The facilitator's debrief, without an attempt.
	doc = page(t, h, "/drills/gpu-pool-taint/debrief", http.StatusOK)
	if doc.Find(`[data-testid="verdict"]`).Length() != 0 || doc.Find(`[data-testid="evidence"] li`).Length() != 2 {
		t.Error("the facilitator's debrief shows a verdict or lacks the evidence")
	}
}

func TestDrillBadRequests(t *testing.T) {
	h := newHandler(t)
	now := strconv.FormatInt(time.Now().Unix(), 10)
	for target, want := range map[string]int{
		"/drills/no-such-drill":                                                 http.StatusNotFound,
		"/drills/gpu-pool-taint?t=yesterday":                                    http.StatusBadRequest,
		"/drills/gpu-pool-taint?t=99999999999":                                  http.StatusBadRequest,
		"/drills/gpu-pool-taint?t=" + now + "&c=delete+pod+x":                   http.StatusBadRequest,
		"/drills/gpu-pool-taint?t=" + now + "&c=describe+pod+nope+-n+nlp-train": http.StatusOK, // kubectl's NotFound is output
		"/drills/gpu-pool-taint/debrief?e=10&route=pending/nope":                http.StatusBadRequest,
		"/drills/gpu-pool-taint/debrief?e=ten&route=pending/volume":             http.StatusBadRequest,
		"/drills/gpu-pool-taint/debrief?e=-5&route=pending/volume":              http.StatusBadRequest,
	} {
		if rec := get(t, h, target); rec.Code != want {
			t.Errorf("GET %s: %d, want %d", target, rec.Code, want)
		}
	}
}
