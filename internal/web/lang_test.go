package web_test

import (
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// getLang serves a GET with request headers and parses the page.
func getLang(t *testing.T, h http.Handler, target string, header ...string) (*httptest.ResponseRecorder, *goquery.Document) {
	t.Helper()
	rec := get(t, h, target, header...)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatal(err)
	}
	return rec, doc
}

func TestLanguageNegotiation(t *testing.T) {
	h := newHandler(t)
	for _, tc := range []struct {
		name   string
		target string
		header []string
		want   string
	}{
		{"default is English", "/", nil, "en"},
		{"query", "/?lang=ko", nil, "ko"},
		{"cookie", "/", []string{"Cookie", "casebook_lang=ko"}, "ko"},
		{"query beats cookie", "/?lang=en", []string{"Cookie", "casebook_lang=ko"}, "en"},
		{"Korean browser", "/", []string{"Accept-Language", "ko-KR,ko;q=0.9,en;q=0.8"}, "ko"},
		{"cookie beats browser", "/", []string{"Accept-Language", "ko-KR", "Cookie", "casebook_lang=en"}, "en"},
		{"browser in a language we lack", "/", []string{"Accept-Language", "fr-FR"}, "en"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, doc := getLang(t, h, tc.target, tc.header...)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d", rec.Code)
			}
			if got := doc.Find("html").AttrOr("lang", ""); got != tc.want {
				t.Errorf("<html lang> = %q, want %q", got, tc.want)
			}
			if got := rec.Header().Get("Content-Language"); got != tc.want {
				t.Errorf("Content-Language = %q, want %q", got, tc.want)
			}
			if vary := strings.Join(rec.Header().Values("Vary"), ","); !strings.Contains(vary, "Accept-Language") || !strings.Contains(vary, "Cookie") {
				t.Errorf("Vary = %q: caches would serve one language to everyone", vary)
			}
		})
	}

	t.Run("an explicit choice is remembered", func(t *testing.T) {
		rec := get(t, h, "/?lang=ko")
		var found bool
		for _, c := range rec.Result().Cookies() {
			if c.Name == "casebook_lang" && c.Value == "ko" && c.MaxAge > 0 && c.Path == "/" {
				found = true
			}
		}
		if !found {
			t.Errorf("no lasting casebook_lang=ko cookie: %v", rec.Header().Values("Set-Cookie"))
		}
		if rec := get(t, h, "/"); len(rec.Result().Cookies()) != 0 {
			t.Errorf("a request without ?lang set a cookie: %v", rec.Header().Values("Set-Cookie"))
		}
	})

	t.Run("unknown language is a 400 naming the valid ones", func(t *testing.T) {
		rec := get(t, h, "/?lang=fr")
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "en or ko") {
			t.Errorf("status %d body %.200q", rec.Code, rec.Body.String())
		}
		rec = get(t, h, "/api/incidents?lang=xx")
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Header().Get("Content-Type"), "json") {
			t.Errorf("API: status %d type %q", rec.Code, rec.Header().Get("Content-Type"))
		}
	})
}

// The switch and the hreflang links keep everything the URL holds
// (filters, the page, a search, a wizard walk), changing only the language.
func TestLanguageSwitchKeepsURLState(t *testing.T) {
	h := newHandler(t)
	for _, target := range []string{
		"/?component=gpu-driver&sort=oldest",
		"/graph?symptom=pod-pending",
		"/incidents/IL-0021",
		"/triage",
	} {
		t.Run(target, func(t *testing.T) {
			_, doc := getLang(t, h, target)
			sw := byTestID(doc, "lang-switch")
			if sw.Length() != 1 {
				t.Fatalf("%d language switches", sw.Length())
			}
			href := sw.AttrOr("href", "")
			u, err := url.Parse(href)
			if err != nil {
				t.Fatal(err)
			}
			orig, _ := url.Parse(target)
			if u.Path != orig.Path || u.Query().Get("lang") != "ko" {
				t.Errorf("switch %q should be %s with lang=ko", href, orig.Path)
			}
			for k, v := range orig.Query() {
				if u.Query().Get(k) != v[0] {
					t.Errorf("switch %q lost %s=%s", href, k, v[0])
				}
			}
			alts := map[string]string{}
			doc.Find(`link[rel="alternate"][hreflang]`).Each(func(_ int, s *goquery.Selection) {
				alts[s.AttrOr("hreflang", "")] = s.AttrOr("href", "")
			})
			for _, l := range []string{"en", "ko", "x-default"} {
				a, err := url.Parse(alts[l])
				if err != nil || !a.IsAbs() || a.Path != orig.Path {
					t.Errorf("hreflang %s = %q, want an absolute URL of %s", l, alts[l], orig.Path)
				}
			}
			// Following the switch gives the Korean page, whose switch
			// leads back to English.
			rec, ko := getLang(t, h, href)
			if rec.Code != http.StatusOK || ko.Find("html").AttrOr("lang", "") != "ko" {
				t.Fatalf("switch target: status %d lang %q", rec.Code, ko.Find("html").AttrOr("lang", ""))
			}
			back, _ := url.Parse(byTestID(ko, "lang-switch").AttrOr("href", ""))
			if back.Query().Get("lang") != "en" {
				t.Errorf("the Korean page's switch %q does not lead to English", back)
			}
		})
	}
}

// The library in Korean is the seed page's experience: Korean labels,
// counts and dates as Korean SREs write them, Korean titles and summaries.
func TestKoreanLibraryPage(t *testing.T) {
	h := newHandler(t)
	_, doc := getLang(t, h, "/?lang=ko&component=gpu-driver&domain=kubernetes")
	text := doc.Find("body").Text()
	for _, want := range []string{"적용된 필터", "모두 풀기", "추천 필터", "그래프", "검색어 없이 필터만 적용한 목록입니다. 최근 사례부터입니다.", "원인", "구성 요소", "증상", "기여 요인"} {
		if !strings.Contains(text, want) {
			t.Errorf("Korean library page lacks %q", want)
		}
	}
	if got := doc.Find("h1").Text(); !regexp.MustCompile(`^사례 \d+건$`).MatchString(got) {
		t.Errorf("heading %q, want 사례 N건", got)
	}
	if got := strings.TrimSpace(byTestID(doc, "countline").Text()); !regexp.MustCompile(`^\d+건 중 1~\d+번째`).MatchString(got) {
		t.Errorf("count line %q, want N건 중 1~N번째", got)
	}
	cards := byTestID(doc, "case")
	if cards.Length() == 0 {
		t.Fatal("no cases")
	}
	cards.Each(func(_ int, c *goquery.Selection) {
		if !regexp.MustCompile(`\p{Hangul}`).MatchString(c.Find("h3").Text()) && byTestID(c, "english-only").Length() == 0 {
			t.Errorf("card %s: title %q is not Korean and not marked English only", c.AttrOr("data-id", ""), c.Find("h3").Text())
		}
		if meta := c.Find(".meta").Text(); !regexp.MustCompile(`\d{4}년 \d{1,2}월( \d{1,2}일)?`).MatchString(meta) {
			t.Errorf("card %s: date %q is not written the Korean way", c.AttrOr("data-id", ""), meta)
		}
	})
}

// A Korean incident page shows the Korean title, summary and body when the
// library has them, and says so when it shows English instead.
func TestKoreanIncidentPage(t *testing.T) {
	h := newHandler(t)
	withBody, without := koreanBodies(t)
	if withBody == "" {
		t.Fatal("the library has no Korean incident body: the Korean incident page has nothing to show")
	}
	_, doc := getLang(t, h, "/incidents/"+withBody+"?lang=ko")
	if !regexp.MustCompile(`\p{Hangul}`).MatchString(doc.Find("h1").Text()) {
		t.Errorf("%s: title %q is not Korean", withBody, doc.Find("h1").Text())
	}
	for _, sec := range []string{"symptom", "trigger", "detection", "response", "follow-ups", "lessons"} {
		s := byTestID(doc, "section-"+sec)
		if s.Length() == 1 && !regexp.MustCompile(`\p{Hangul}`).MatchString(s.Find("h2").Text()) {
			t.Errorf("%s: section #%s heading %q is not Korean", withBody, sec, s.Find("h2").Text())
		}
	}
	if byTestID(doc, "section-symptom").Length() != 1 {
		t.Errorf("%s: the Korean body keeps the English anchors; #symptom is missing", withBody)
	}
	if byTestID(doc, "english-only-body").Length() != 0 {
		t.Errorf("%s has a Korean body but the page says English only", withBody)
	}
	if without != "" {
		_, doc := getLang(t, h, "/incidents/"+without+"?lang=ko")
		if byTestID(doc, "english-only-body").Length() != 1 {
			t.Errorf("%s has no Korean body: the page must say it shows English", without)
		}
		if byTestID(doc, "section-symptom").Find("h2").Text() == "" {
			t.Errorf("%s: the English body must still be shown", without)
		}
	}
}

// koreanBodies finds an incident with a Korean body and one without.
func koreanBodies(t *testing.T) (with, without string) {
	files, err := filepath.Glob("../../library/incidents/IL-*.md")
	if err != nil {
		t.Fatal(err)
	}
	ko := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, ".ko.md") {
			ko[strings.TrimSuffix(f, ".ko.md")+".md"] = true
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".ko.md") {
			continue
		}
		src, _ := os.ReadFile(f)
		if strings.Contains(string(src), "\nkind: study") {
			continue
		}
		id := regexp.MustCompile(`IL-\d{4}`).FindString(filepath.Base(f))
		if ko[f] && with == "" {
			with = id
		}
		if !ko[f] && without == "" {
			without = id
		}
	}
	return with, without
}

// The JSON API negotiates the language like the pages, says which it
// chose, and carries both languages' text where both exist.
func TestAPILanguage(t *testing.T) {
	h := newHandler(t)
	var list struct {
		Lang  string `json:"lang"`
		Items []struct {
			Title   string `json:"title"`
			TitleKo string `json:"title_ko"`
		} `json:"items"`
		Facets map[string][]struct {
			Label   string `json:"label"`
			LabelKo string `json:"label_ko"`
		} `json:"facets"`
	}
	getJSON(t, h, "/api/incidents?lang=ko&per_page=5", http.StatusOK, &list)
	if list.Lang != "ko" {
		t.Errorf("lang = %q, want ko", list.Lang)
	}
	for _, it := range list.Items {
		if it.Title == "" || it.TitleKo == "" {
			t.Errorf("item lacks title or title_ko: %+v", it)
		}
	}
	if c := list.Facets["component"]; len(c) == 0 || c[0].Label == "" || c[0].LabelKo == "" {
		t.Errorf("component facet counts lack label and label_ko: %+v", c)
	}
	rec := get(t, h, "/api/incidents?per_page=1", "Accept-Language", "ko-KR")
	if !strings.Contains(rec.Body.String(), `"lang":"ko"`) {
		t.Errorf("Accept-Language: ko did not reach the API: %.200s", rec.Body.String())
	}
	var pbs struct {
		Lang  string `json:"lang"`
		Items []struct {
			Title   string `json:"title"`
			TitleKo string `json:"title_ko"`
		} `json:"items"`
	}
	getJSON(t, h, "/api/playbooks?lang=en", http.StatusOK, &pbs)
	if pbs.Lang != "en" {
		t.Errorf("playbooks lang = %q", pbs.Lang)
	}
	for _, pb := range pbs.Items {
		if pb.Title == "" || pb.TitleKo == "" {
			t.Errorf("playbook lacks title or title_ko: %+v", pb)
		}
	}
	var g struct {
		Nodes []struct {
			Kind, Label string
			LabelKo     string `json:"label_ko"`
		} `json:"nodes"`
	}
	getJSON(t, h, "/api/graph?component=gpu-driver", http.StatusOK, &g)
	terms, withKo := 0, 0
	for _, n := range g.Nodes {
		if n.Kind != "case" {
			terms++
			if n.LabelKo != "" {
				withKo++
			}
		}
	}
	if terms == 0 || withKo != terms {
		t.Errorf("graph: %d of %d term nodes carry label_ko", withKo, terms)
	}
}

// A paste on the Korean wizard is answered in Korean: the result's labels,
// the playbook and section it points to, and the walk it continues into,
// with the pasted lines quoted as they were.
func TestKoreanPasteResult(t *testing.T) {
	h := newHandler(t)
	form := url.Values{"text": {"Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}."}}
	req := httptest.NewRequest(http.MethodPost, "/triage?lang=ko", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %.300s", rec.Code, rec.Body.String())
	}
	doc, err := goquery.NewDocumentFromReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	res := byTestID(doc, "paste-result")
	if h2 := res.Find("h2").First().Text(); h2 != "붙여 넣은 내용에서 찾은 것" {
		t.Errorf("result heading %q", h2)
	}
	first := byTestID(res, "paste-route").First()
	if first.AttrOr("data-route", "") != "pending/untolerated-taint" {
		t.Fatalf("best route %q", first.AttrOr("data-route", ""))
	}
	if conf := first.Find("h3 .muted").Text(); !regexp.MustCompile(`^신뢰도 \d+%$`).MatchString(conf) {
		t.Errorf("confidence %q, want 신뢰도 N%%", conf)
	}
	link := first.Find(`a[href^="/playbooks/"]`).First().Text()
	if !strings.HasPrefix(link, "플레이북: ") || !regexp.MustCompile(`\p{Hangul}.*—.*\p{Hangul}`).MatchString(link) {
		t.Errorf("playbook link %q, want the Korean playbook and section titles", link)
	}
	if ev := byTestID(first, "evidence").Text(); !strings.Contains(ev, "untolerated taint {nvidia.com/gpu: present}") || !strings.Contains(ev, "1번째 줄") {
		t.Errorf("evidence %q: the line as pasted, numbered in Korean", ev)
	}
	cont := byTestID(doc, "paste-continue").AttrOr("href", "")
	if cont == "" {
		t.Fatal("no way into the wizard")
	}
	_, walk := getLang(t, h, cont, "Cookie", "casebook_lang=ko")
	if n := byTestID(walk, "inferred").Length(); n == 0 || byTestID(walk, "inferred").First().Text() != "붙여 넣은 내용에서 추론" {
		t.Errorf("inferred answers not marked in Korean (%d)", n)
	}
	if d := byTestID(walk, "diagnosis").Text(); d != "" && !regexp.MustCompile(`\p{Hangul}`).MatchString(d) {
		t.Errorf("diagnosis %q is not Korean", d)
	}
}

// Errors a person sees come from the catalogue by the error's type: a
// Korean page says them in Korean, keeping what the user typed as typed.
func TestKoreanErrors(t *testing.T) {
	h := newHandler(t)
	tests := []struct {
		target string
		status int
		want   string // Korean text on the page
		never  string // the English that must not show
	}{
		{"/?lang=ko&year=12", 400, `연도 "12"이(가) 잘못되었습니다`, "want a four-digit year"},
		{"/?lang=ko&component=gpu-drivr", 400, `"gpu-driver"을(를) 찾으셨나요?`, "did you mean"},
		{"/incidents/IL-9999?lang=ko", 404, "IL-9999", "not found"},
		{"/terms/planet/earth?lang=ko", 404, "facet planet은(는) 없습니다", "facets are"},
		{"/triage?lang=ko&tree=no-such-tree", 400, "/triage에서 다시 시작하세요", "start again"},
		{"/triage?lang=ko&tree=pod-pending&a=x", 400, `답 "x"이(가) 잘못되었습니다`, "want question"},
		{"/triage/cluster?lang=ko&namespace=default", 404, "실시간 진단이 설정되어 있지 않습니다", "not configured"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			rec, doc := getLang(t, h, tt.target)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			text := doc.Find("main").Text()
			if !strings.Contains(text, tt.want) {
				t.Errorf("page lacks %q:\n%s", tt.want, strings.TrimSpace(doc.Find(`[data-testid="error"]`).Text()))
			}
			if strings.Contains(text, tt.never) {
				t.Errorf("page shows the English %q", tt.never)
			}
		})
	}
	// The wizard's start page says why live triage is off, in Korean.
	_, doc := getLang(t, h, "/triage?lang=ko")
	if text := doc.Find("main").Text(); strings.Contains(text, "not configured") || !strings.Contains(text, "실시간 진단이 설정되어 있지 않습니다") {
		t.Errorf("the Korean start page does not say in Korean that live triage is off")
	}
}

// The Atom feed speaks the request's language: a Korean reader's feed has
// the Korean title, the filter's Korean label and every incident's
// title_ko and summary_ko.
func TestKoreanFeed(t *testing.T) {
	h := newHandler(t)
	rec := get(t, h, "/feed.atom?lang=ko&component=gpu-driver")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	var feed struct {
		Title   string `xml:"title"`
		Entries []struct {
			Title   string `xml:"title"`
			Summary string `xml:"summary"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(rec.Body.Bytes(), &feed); err != nil {
		t.Fatalf("not Atom: %v", err)
	}
	if !strings.Contains(feed.Title, "최근 사례") || !strings.Contains(feed.Title, "GPU 드라이버") {
		t.Errorf("feed title %q, want the Korean title with the filter's Korean label", feed.Title)
	}
	if len(feed.Entries) == 0 {
		t.Fatal("no entries")
	}
	hangul := regexp.MustCompile(`\p{Hangul}`)
	for _, e := range feed.Entries {
		if !hangul.MatchString(e.Title) || !hangul.MatchString(e.Summary) {
			t.Errorf("entry not in Korean: %q / %q", e.Title, e.Summary)
		}
	}
}
