package mcp_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/mcp"
)

type emptySource struct{}

func (emptySource) CurrentFor(bool) *content.Content { return nil }

func jsonString(key, value string) string {
	b, _ := json.Marshal(map[string]string{key: value})
	return string(b)
}

func validCalls(t *testing.T, cs *sdk.ClientSession) {
	t.Run("lang", func(t *testing.T) { koreanCalls(t, cs) })
	t.Run("classify_error", func(t *testing.T) {
		var out mcp.ClassifyOutput
		decode(t, call(t, cs, "classify_error", jsonString("text", gpuEvent)), &out)
		if len(out.Routes) == 0 || out.Routes[0].Route != "pending/insufficient-resources" {
			t.Errorf("routes %+v", out.Routes)
		}
	})
	t.Run("classify_error_redacts", func(t *testing.T) {
		for _, sec := range secrets(t) {
			res := call(t, cs, "classify_error", jsonString("text", "    Environment:\n"+sec.line+"\n"+gpuEvent))
			var out mcp.ClassifyOutput
			decode(t, res, &out)
			if body := text(res); strings.Contains(body, sec.value) {
				t.Errorf("%s: the secret is in the tool's answer", sec.name)
			}
			if out.Redacted == 0 {
				t.Errorf("%s: redacted = 0", sec.name)
			}
		}
	})
	t.Run("vocab", func(t *testing.T) {
		for _, words := range []string{"nvidia device plugin", "노드 자동 복구"} {
			var out mcp.VocabOutput
			decode(t, call(t, cs, "vocab", jsonString("text", words)), &out)
			if len(out.Terms) == 0 {
				t.Errorf("vocab(%q) found no terms", words)
			}
			for _, term := range out.Terms {
				if term.Facet == "" || term.ID == "" || term.Label == "" {
					t.Errorf("incomplete term %+v", term)
				}
			}
		}
	})
	t.Run("search_incidents", func(t *testing.T) {
		var out mcp.SearchOutput
		decode(t, call(t, cs, "search_incidents", `{"query":"nvidia driver download 403","limit":5}`), &out)
		if !slices.ContainsFunc(out.Hits, func(h mcp.SearchHit) bool { return h.ID == "IL-0021" }) {
			t.Errorf("IL-0021 (GKE driver download 403) not among %+v", out.Hits)
		}
		if len(out.Hits) > 5 || out.Total < len(out.Hits) {
			t.Errorf("limit 5 gave %d hits of %d", len(out.Hits), out.Total)
		}
		decode(t, call(t, cs, "search_incidents", `{"query":"GPU","filters":{"domain":["gpu"],"year":[2024]},"kind":"incident"}`), &out)
		for _, h := range out.Hits {
			if !strings.HasPrefix(h.Date, "2024") {
				t.Errorf("year filter let through %s dated %s", h.ID, h.Date)
			}
		}
	})
	t.Run("list_incidents", func(t *testing.T) {
		var out mcp.ListOutput
		decode(t, call(t, cs, "list_incidents", `{"filters":{"domain":["gpu"]},"per_page":5,"facets":true}`), &out)
		if out.Total == 0 || len(out.Incidents) == 0 || len(out.Incidents) > 5 || out.Facets["symptom"] == nil {
			t.Errorf("total %d, %d incidents, facets %v", out.Total, len(out.Incidents), out.Facets != nil)
		}
		for _, in := range out.Incidents {
			if !slices.Contains(in.Domains, "gpu") {
				t.Errorf("%s has domains %v", in.ID, in.Domains)
			}
		}
	})
	t.Run("get_incident", func(t *testing.T) {
		var out mcp.IncidentOutput
		decode(t, call(t, cs, "get_incident", `{"id":"il-21"}`), &out)
		if out.ID != "IL-0021" || len(out.Sections) == 0 || len(out.Sources) == 0 || len(out.CauseCategories) == 0 || len(out.Similar) == 0 {
			t.Errorf("incomplete incident %+v", out)
		}
		if len(out.LinkedPlaybooks) != len(out.Playbooks) {
			t.Errorf("linked playbooks %v for %v", out.LinkedPlaybooks, out.Playbooks)
		}
	})
	t.Run("get_playbook", func(t *testing.T) {
		var whole, part mcp.PlaybookOutput
		decode(t, call(t, cs, "get_playbook", `{"id":"pod-pending"}`), &whole)
		if len(whole.Sections) < 6 || len(whole.Incidents) == 0 {
			t.Errorf("pod-pending: %d sections, %d incidents", len(whole.Sections), len(whole.Incidents))
		}
		decode(t, call(t, cs, "get_playbook", `{"id":"pod-pending","section":"cause-c-untolerated-taint"}`), &part)
		if len(part.Sections) != 1 {
			t.Fatalf("%d sections, want the one asked for", len(part.Sections))
		}
		s := part.Sections[0]
		if s.Parent != "Root cause" || !strings.HasPrefix(s.Markdown, "### ") || strings.Contains(s.Markdown, "Cause D") {
			t.Errorf("section part: parent %q, markdown %.200q", s.Parent, s.Markdown)
		}
	})
	t.Run("get_term", func(t *testing.T) {
		var out mcp.TermOutput
		decode(t, call(t, cs, "get_term", `{"facet":"component","id":"nvidia-device-plugin"}`), &out)
		if out.Label == "" || out.IncidentCount == 0 || len(out.CoOccurring) == 0 || len(out.Recent) == 0 {
			t.Errorf("incomplete term %+v", out)
		}
		for _, co := range out.CoOccurring {
			if co.Count < 1 || co.Count > out.IncidentCount {
				t.Errorf("co-occurring %+v with a term on %d incidents", co, out.IncidentCount)
			}
		}
		decode(t, call(t, cs, "get_term", `{"id":"capacity"}`), &out)
		if out.Facet != "cause_category" || len(out.Narrower) == 0 {
			t.Errorf("capacity without a facet: %+v", out)
		}
	})
	t.Run("triage_pod", func(t *testing.T) {
		var out mcp.PodOutput
		decode(t, call(t, cs, "triage_pod", `{"namespace":"ml","pod":"trainer-0"}`), &out)
		if out.Route != "pending/insufficient-resources" || out.URL != "/playbooks/pod-pending#cause-a-insufficient-resources" {
			t.Errorf("pod triage %+v", out)
		}
	})
}

// invalidCalls: each must be a tool error whose text says what to fix.
func invalidCalls(t *testing.T, cs *sdk.ClientSession) {
	tests := []struct {
		tool, args, want string
	}{
		{"classify_error", `{}`, "text"},
		{"classify_error", `{"text":"   "}`, "empty"},
		{"classify_error", `{"text":5}`, "text"},
		{"vocab", `{"text":""}`, "text"},
		{"vocab", jsonString("text", strings.Repeat("gpu ", 1000)), "text"},
		{"search_incidents", `{"query":"gpu","limit":1000}`, "limit"},
		{"search_incidents", `{"query":"gpu","filters":{"component":["nvidia-device-plugn"]}}`, `did you mean "nvidia-device-plugin"`},
		{"search_incidents", `{"query":"gpu","kind":"bogus"}`, "kind"},
		{"search_incidents", `{"q":"gpu"}`, `"q"`},
		{"search_incidents", jsonString("query", strings.Repeat("gpu ", 100)), "100 words"},
		{"list_incidents", `{"page":9999}`, "want a number from 1 to"},
		{"list_incidents", `{"sort":"random"}`, "sort"},
		{"list_incidents", `{"filters":{"year":[1800]}}`, "year"},
		{"list_incidents", `{"filters":{"org":["no-such-org"]}}`, "org"},
		{"get_incident", `{"id":"IL-9999"}`, "no incident IL-9999"},
		{"get_incident", `{"id":"../../etc/passwd"}`, "IL-0021"},
		{"get_incident", `{}`, "id"},
		{"get_playbook", `{"id":"pod-pendng"}`, `did you mean "pod-pending"`},
		{"get_playbook", `{"id":"pod-pending","section":"nope"}`, "cause-a-insufficient-resources"},
		{"get_term", `{"id":"nvidia-device-plugn"}`, "nvidia-device-plugin"},
		{"get_term", `{"facet":"colour","id":"gpu"}`, "facet"},
		{"get_term", `{"id":""}`, "id"},
		{"library_trends", `{"chart":"pie"}`, "chart"},
		{"library_trends", `{"filters":{"domain":["gpus"]}}`, `"gpu"`},
		{"get_playbook", `{"id":"pod-pending","lang":"fr"}`, "lang"},
		{"classify_error", `{"text":"OOMKilled","lang":"jp"}`, "lang"},
		{"triage_pod", `{"namespace":"Bad_NS","pod":"x"}`, "namespace"},
		{"triage_pod", `{"namespace":"kube-system","pod":"coredns-1"}`, `namespace not open to live triage: "kube-system" is outside the allowed namespaces (ml)`},
		{"triage_pod", `{"namespace":"ml","pod":"gone-0"}`, "not found in the cluster: pod ml/gone-0"},
		{"triage_pod", `{"namespace":"kube-system","pod":"service/kube-dns"}`, `"kube-system" is outside the allowed namespaces (ml)`},
		{"triage_pod", `{"namespace":"kube-system","pod":"hpa/api"}`, `"kube-system" is outside the allowed namespaces (ml)`},
		{"triage_pod", `{"namespace":"ml","pod":"networkpolicy/deny-all"}`, `target "networkpolicy/deny-all"`},
		{"no_such_tool", `{}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args[:min(len(tt.args), 40)], func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			if tt.tool == "no_such_tool" {
				// An unknown tool is a protocol error by the spec; the
				// point is that the session survives it.
				if err == nil && !res.IsError {
					t.Error("calling an unknown tool succeeded")
				}
				return
			}
			if err != nil {
				t.Fatalf("protocol error %v; want a tool error", err)
			}
			if !res.IsError {
				t.Fatalf("succeeded; want a tool error. Output: %.300s", text(res))
			}
			if !strings.Contains(strings.ToLower(text(res)), strings.ToLower(tt.want)) {
				t.Errorf("error %q does not mention %q", text(res), tt.want)
			}
		})
	}
}

// koreanCalls: with lang=ko the text a tool gives in one language comes in
// Korean (same anchors, so section arguments and URLs still work), and
// fields with a Korean twin come in both languages whatever lang says.
func koreanCalls(t *testing.T, cs *sdk.ClientSession) {
	hangul := func(s string) bool {
		for _, r := range s {
			if r >= 0xAC00 && r <= 0xD7A3 {
				return true
			}
		}
		return false
	}
	var en, ko mcp.PlaybookOutput
	decode(t, call(t, cs, "get_playbook", `{"id":"pod-pending"}`), &en)
	decode(t, call(t, cs, "get_playbook", `{"id":"pod-pending","lang":"ko"}`), &ko)
	if en.Lang != "en" || ko.Lang != "ko" || hangul(en.Title) || !hangul(ko.Title) || ko.EnglishOnly {
		t.Errorf("get_playbook: en %q %q, ko %q %q english_only=%v", en.Lang, en.Title, ko.Lang, ko.Title, ko.EnglishOnly)
	}
	if len(en.Sections) != len(ko.Sections) {
		t.Fatalf("get_playbook: %d English sections, %d Korean", len(en.Sections), len(ko.Sections))
	}
	for i := range en.Sections {
		if en.Sections[i].ID != ko.Sections[i].ID || !hangul(ko.Sections[i].Title) {
			t.Errorf("section %d: en #%s, ko #%s %q", i, en.Sections[i].ID, ko.Sections[i].ID, ko.Sections[i].Title)
		}
	}
	var part mcp.PlaybookOutput
	decode(t, call(t, cs, "get_playbook", `{"id":"pod-pending","section":"root-cause","lang":"ko"}`), &part)
	if len(part.Sections) != 1 || !hangul(part.Sections[0].Markdown) {
		t.Errorf("a Korean section by anchor: %+v", part.Sections)
	}

	var cls mcp.ClassifyOutput
	decode(t, call(t, cs, "classify_error", `{"lang":"ko","text":"`+gpuEvent+`"}`), &cls)
	if cls.Lang != "ko" || len(cls.Routes) == 0 || !hangul(cls.Routes[0].Diagnosis) || !hangul(cls.Routes[0].SectionTitle) {
		t.Errorf("classify_error in Korean: %+v", cls)
	}

	var inc mcp.IncidentOutput
	decode(t, call(t, cs, "get_incident", `{"id":"IL-0021","lang":"ko"}`), &inc)
	if inc.Lang != "ko" || inc.Title == "" || !hangul(inc.TitleKo) || len(inc.SectionsKo) == 0 {
		t.Errorf("get_incident carries both languages: title %q title_ko %q, %d Korean sections", inc.Title, inc.TitleKo, len(inc.SectionsKo))
	}
	for _, s := range inc.Similar {
		if !hangul(s.Title) {
			t.Errorf("similar %s: title %q not in Korean", s.ID, s.Title)
		}
	}

	var voc mcp.VocabOutput
	decode(t, call(t, cs, "vocab", `{"text":"gpu driver","lang":"en"}`), &voc)
	if len(voc.Terms) == 0 || voc.Terms[0].Label == "" || !hangul(voc.Terms[0].LabelKo) {
		t.Errorf("vocab returns both labels: %+v", voc.Terms)
	}
}

// secret is one case of internal/answer/testdata/secrets.txt, the table
// every door's redaction test reads.
type secret struct{ name, line, value string }

func secrets(t *testing.T) []secret {
	t.Helper()
	data, err := os.ReadFile("../answer/testdata/secrets.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []secret
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Split(l, "|"); len(f) == 3 && !strings.HasPrefix(l, "#") {
			out = append(out, secret{f[0], strings.ReplaceAll(f[1], `\n`, "\n"), f[2]})
		}
	}
	if len(out) < 10 {
		t.Fatalf("%d secrets read", len(out))
	}
	return out
}
