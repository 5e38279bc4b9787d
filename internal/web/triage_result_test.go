package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// routeID is how a route id looks; people read titles, not these.
var routeID = regexp.MustCompile(`^[a-z-]+/[a-z0-9-]+$`)

// taintEvent is the scheduler's event for a pod held off a GPU pool, as
// kubectl describe prints it.
const taintEvent = "Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}."

func postPaste(t *testing.T, h http.Handler, target, text string) *goquery.Document {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(url.Values{"text": {text}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("POST %s: status %d: %.300s", target, rec.Code, rec.Body.String())
	}
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// noIDHeadings fails when a heading of the page is a bare route id.
func noIDHeadings(t *testing.T, doc *goquery.Document) {
	t.Helper()
	doc.Find("main h1, main h2, main h3").Each(func(_ int, h *goquery.Selection) {
		if txt := strings.TrimSpace(h.Text()); routeID.MatchString(strings.Fields(txt + " x")[0]) {
			t.Errorf("heading %q starts with an id", txt)
		}
	})
}

func TestWizardResultNamesTheRoute(t *testing.T) {
	h := newHandler(t)
	for _, tc := range []struct{ lang, title string }{{"", "Untolerated taint"}, {"&lang=ko", "허용되지 않은 taint"}} {
		doc := page(t, h, "/triage?tree=root&a=symptom%3Dpending%2Cpending-reason%3Dtaint"+tc.lang, http.StatusOK)
		if got := one(t, doc, "result-title").Text(); got != tc.title {
			t.Errorf("result title %q, want %q", got, tc.title)
		}
		if got := one(t, doc, "route").Text(); got != "pending/untolerated-taint" {
			t.Errorf("route id %q", got)
		}
		if !one(t, doc, "route").Parent().HasClass("route-id") {
			t.Errorf("the route id is not in the small route-id line")
		}
		noIDHeadings(t, doc)
		if cmds := byTestID(doc, "first-commands"); cmds.Find("pre").Length() == 0 || cmds.ParentsFiltered(".grid2").Length() != 0 {
			t.Errorf("first commands: %d blocks, inside a half-width column: %v", cmds.Find("pre").Length(), cmds.ParentsFiltered(".grid2").Length() != 0)
		}
		if p := one(t, doc, "progress").Text(); p == "" {
			t.Errorf("no progress line on the result")
		}
	}
}

func TestWizardProgress(t *testing.T) {
	h := newHandler(t)
	doc := page(t, h, "/triage?tree=root&a=symptom%3Dpending", http.StatusOK)
	m := regexp.MustCompile(`^Question (\d+) of at most (\d+)$`).FindStringSubmatch(one(t, doc, "progress").Text())
	if m == nil {
		t.Fatalf("progress %q", one(t, doc, "progress").Text())
	}
	step, of := atoi(t, m[1]), atoi(t, m[2])
	if step != 2 || of < 3 {
		t.Errorf("progress step %d of %d; want step 2 of at least 3 (pending reason, preemption, then more)", step, of)
	}
	// Following answers never exceeds the bound it promised.
	for i := 0; i < 12; i++ {
		next := byTestID(doc, "answer").First().AttrOr("href", "")
		if next == "" {
			break
		}
		doc = page(t, h, next, http.StatusOK)
		if byTestID(doc, "outcome").Length() == 1 {
			break
		}
		m := regexp.MustCompile(`^Question (\d+) of at most (\d+)$`).FindStringSubmatch(one(t, doc, "progress").Text())
		if m == nil || atoi(t, m[1]) > of || atoi(t, m[2]) > of {
			t.Fatalf("at %s progress %q, first promised at most %d", next, one(t, doc, "progress").Text(), of)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWizardNotSure(t *testing.T) {
	h := newHandler(t)
	doc := page(t, h, "/triage?tree=root&a=symptom%3Dpending", http.StatusOK)
	unsure := one(t, doc, "not-sure").AttrOr("href", "")
	if !strings.Contains(unsure, "unsure=1") {
		t.Fatalf("not-sure link %q", unsure)
	}
	// A browser sends no fragment; the link's #question only scrolls.
	unsure, _, _ = strings.Cut(unsure, "#")
	doc = page(t, h, unsure, http.StatusOK)
	one(t, doc, "unsure")
	answers := byTestID(doc, "answer-leads").Children()
	if answers.Length() != byTestID(doc, "answer").Length() || answers.Length() < 5 {
		t.Fatalf("%d answers with leads, %d answers", answers.Length(), byTestID(doc, "answer").Length())
	}
	found := false
	answers.Each(func(_ int, li *goquery.Selection) {
		if strings.Contains(li.Find(`[data-testid="answer"]`).Text(), "untolerated taint") {
			lead := li.Find(`.leads a`)
			found = lead.Length() == 1 && lead.Text() == "Untolerated taint" && lead.AttrOr("href", "") == "/playbooks/pod-pending#cause-c-untolerated-taint"
		}
	})
	if !found {
		t.Errorf("the taint answer does not say it leads to the untolerated-taint section")
	}
	none := one(t, doc, "none-of-these")
	if none.Find(`a[href="/triage#paste-text"]`).Length() != 1 {
		t.Errorf("none of these offers no paste: %s", none.Text())
	}
}

func TestPasteResultSpecificsAndShareLink(t *testing.T) {
	h := newHandler(t)
	doc := postPaste(t, h, "/triage", taintEvent)
	noIDHeadings(t, doc)
	first := byTestID(doc, "paste-route").First()
	if got := first.Find(`[data-testid="route-title"]`).Contents().First().Text(); strings.TrimSpace(got) != "Untolerated taint" {
		t.Errorf("route title %q", got)
	}
	if got := first.Find(`[data-testid="specific-taint"] code`).Text(); got != "nvidia.com/gpu=present" {
		t.Errorf("taint named %q", got)
	}
	tol := first.Find(`[data-testid="toleration"]`).Text()
	for _, want := range []string{"key: nvidia.com/gpu", "operator: Equal", "value: present"} {
		if !strings.Contains(tol, want) {
			t.Errorf("toleration %q lacks %q", tol, want)
		}
	}
	if !strings.Contains(first.Find(`[data-testid="specific-taint"]`).Text(), "3 nodes") {
		t.Errorf("taint line %q does not say on how many nodes", first.Find(`[data-testid="specific-taint"]`).Text())
	}

	// The share link shows the same result, the paste back in its box.
	link := one(t, doc, "paste-share").AttrOr("href", "")
	if !strings.HasPrefix(link, "/triage/paste?z=") {
		t.Fatalf("share link %q", link)
	}
	again := page(t, h, link, http.StatusOK)
	if got := one(t, again, "paste-text").Text(); got != taintEvent {
		t.Errorf("the shared page's paste box holds %q", got)
	}
	if got := byTestID(again, "paste-route").First().AttrOr("data-route", ""); got != "pending/untolerated-taint" {
		t.Errorf("the shared link routes to %q", got)
	}
	plain := page(t, h, "/triage/paste?"+url.Values{"text": {taintEvent}}.Encode(), http.StatusOK)
	if got := byTestID(plain, "paste-route").First().AttrOr("data-route", ""); got != "pending/untolerated-taint" {
		t.Errorf("?text= routes to %q", got)
	}
	for _, bad := range []string{"/triage/paste?z=!!!", "/triage/paste?z=" + url.QueryEscape("aGVsbG8")} {
		if rec := get(t, h, bad); rec.Code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400", bad, rec.Code)
		}
	}
	// A paste too long for a link says so instead of offering a broken one.
	long := postPaste(t, h, "/triage", taintEvent+"\n"+randomLines(4000))
	if byTestID(long, "paste-share").Length() != 0 || byTestID(long, "paste-share-too-long").Length() != 1 {
		t.Errorf("a long paste got a share link")
	}
}

// randomLines is text that does not compress: n lines of pseudo-random hex.
func randomLines(n int) string {
	var b strings.Builder
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b.WriteString(strconv.FormatUint(x, 16))
		b.WriteByte('\n')
	}
	return b.String()
}
