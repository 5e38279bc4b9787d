package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/access"
	"casebook/internal/gaps"
)

// restrictedServer serves the acme layer, restricted to sre@acme.example,
// on the embedded public library, or on the small good fixture when pub is
// a folder to copy it to. ACME-0001 carries a triage route, so the wizard's
// case lists can show it.
func restrictedServer(t *testing.T, pub string) (s *hardServer, team string) {
	t.Helper()
	team = filepath.Join(t.TempDir(), "acme")
	copyDir(t, filepath.Join(fixtures, "layers", "acme"), team)
	inc := filepath.Join(team, "incidents", "ACME-0001-gateway-sent-traffic-to-drained-pool.md")
	src, err := os.ReadFile(inc)
	if err != nil {
		t.Fatal(err)
	}
	write(t, inc, strings.Replace(string(src), "playbooks: [pod-pending]", "playbooks: [pod-pending]\nroutes: [pending/insufficient-resources]", 1))
	args := []string{"--library", team}
	if pub != "" {
		copyDir(t, filepath.Join(fixtures, "good"), pub)
		args = []string{"--no-embedded", "--library", pub, "--library", team}
	}
	s = hardStart(t, append(args, "--data", t.TempDir(),
		"--auth-header", "X-Forwarded-Email", "--allow-users", "sre@acme.example", "--restrict-layer", "acme")...)
	return s, team
}

// fetchAs requests path as the identity id (GET, or POST of a form).
func fetchAs(t *testing.T, s *hardServer, id, path string, form url.Values) (int, string) {
	t.Helper()
	method, body := "GET", ""
	if form != nil {
		method, body = "POST", form.Encode()
	}
	req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	req.Header.Set("X-Forwarded-Email", id)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return resp.StatusCode, b.String()
}

const (
	allowed = "SRE@acme.example" // proxies differ in case
	other   = "eve@elsewhere.org"
)

// Every door of the portal answers a reader not on the allow-list from the
// library without the restricted layer, and an allowed reader from the
// whole library. The allowed reader asks first each time, so a result cache
// shared between the two views would hand the other reader the team's
// entries. Each check fails if its door read the unfiltered library.
func TestRestrictedLayerAtEveryDoor(t *testing.T) {
	s, _ := restrictedServer(t, "")
	type door struct {
		name, path string
		form       url.Values
		// team is text only the team's layer has on this answer.
		team string
	}
	doors := []door{
		{"incident page", "/incidents/ACME-0001", nil, "Gateway sent traffic to a drained GPU pool"},
		{"incident API (layer)", "/api/incidents/ACME-0001", nil, `"layer":"acme"`},
		{"library list", "/", nil, "ACME-0001"},
		{"library Source facet", "/", nil, "layer=acme"},
		{"incidents API", "/api/incidents?per_page=100", nil, "ACME-0002"},
		{"search page", "/search?q=gateway+drained+pool", nil, "ACME-0001"},
		{"search API", "/api/search?q=gateway+drained+pool", nil, "ACME-0001"},
		{"search API Source facet", "/api/search?q=gateway", nil, `"term":"acme"`},
		{"search graph", "/api/graph?q=gateway+drained+pool", nil, "case:ACME-0001"},
		{"library graph", "/api/graph", nil, "case:ACME-0002"},
		{"graph page", "/graph", nil, "ACME-0002"},
		{"term page", "/terms/cause/gateway-misroute", nil, "ACME-0001"},
		{"terms list", "/terms", nil, "gateway-misroute"},
		{"taxonomy API", "/api/taxonomy", nil, "gateway-misroute"},
		{"feed", "/feed.atom?layer=acme", nil, "ACME-0001"},
		{"export CSV", "/api/export.csv", nil, "ACME-0001"},
		{"export JSON", "/api/export.json", nil, "ACME-0002"},
		{"team playbook", "/playbooks/acme-gateway", nil, "Inference gateway errors"},
		{"playbooks list", "/playbooks", nil, "acme-gateway"},
		{"overriding playbook", "/playbooks/pod-pending", nil, "Pod stuck in Pending (ACME)"},
		{"playbook API override", "/api/playbooks/pod-pending", nil, "(ACME)"},
		{"playbook case list", "/playbooks/pod-pending", nil, "ACME-0001"},
		{"triage trees API", "/api/triage/trees", nil, "acme-gateway"},
		{"wizard paste cases", "/triage", url.Values{"text": {"0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}}, "ACME-0001"},
		{"team's triage tree", "/triage?tree=acme-gateway", nil, "drained nodes"},
		{"team's outcome note", "/api/triage/trees/gpu-missing", nil, "acmectl"},
	}
	for _, d := range doors {
		t.Run(d.name, func(t *testing.T) {
			code, body := fetchAs(t, s, allowed, d.path, d.form)
			if code != 200 || !strings.Contains(body, d.team) {
				t.Fatalf("allowed reader: %s = %d, want 200 with %q", d.path, code, d.team)
			}
			code, body = fetchAs(t, s, other, d.path, d.form)
			// A 404 page echoes the address asked for, which may name the id.
			if strings.Contains(body, d.team) || code == 200 && strings.Contains(body, "ACME-000") {
				t.Errorf("reader not on the allow-list sees the team's layer at %s (%d)", d.path, code)
			}
		})
	}
	req, _ := http.NewRequest("GET", s.URL+"/", nil)
	req.Header.Set("X-Forwarded-Email", other)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		if !slices.Contains(resp.Header.Values("Vary"), "X-Forwarded-Email") {
			t.Errorf("Vary = %q: a shared cache could hand one reader's page to another", resp.Header.Values("Vary"))
		}
	}
	for _, path := range []string{"/incidents/ACME-0001", "/api/incidents/ACME-0002", "/playbooks/acme-gateway", "/terms/cause/gateway-misroute"} {
		if code, _ := fetchAs(t, s, other, path, nil); code != http.StatusNotFound {
			t.Errorf("reader not on the allow-list: %s = %d, want 404", path, code)
		}
	}
	// The public playbook the team's overrides, for everyone else.
	if code, body := fetchAs(t, s, other, "/api/playbooks/pod-pending", nil); code != 200 || !strings.Contains(body, `"layer":"public"`) {
		t.Errorf("pod-pending for a reader not on the allow-list: %d, want the public playbook:\n%.300s", code, body)
	}

	// MCP: the same library as the pages, per caller.
	mcpSearch := func(id, tool string, args map[string]any) string {
		client := &http.Client{Transport: headerTransport{"X-Forwarded-Email", id}}
		cs, _ := mcpClient(t, &sdk.StreamableClientTransport{Endpoint: s.URL + "/mcp", HTTPClient: client, DisableStandaloneSSE: true})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return toolText(res)
	}
	if got := mcpSearch(allowed, "search_incidents", map[string]any{"query": "gateway drained pool"}); !strings.Contains(got, "ACME-0001") {
		t.Errorf("MCP search_incidents for the allowed reader lacks ACME-0001:\n%.500s", got)
	}
	if got := mcpSearch(other, "search_incidents", map[string]any{"query": "gateway drained pool"}); strings.Contains(got, "ACME-") {
		t.Errorf("MCP search_incidents for a reader not on the allow-list shows the team's layer:\n%.500s", got)
	}
	if got := mcpSearch(other, "get_incident", map[string]any{"id": "ACME-0001"}); strings.Contains(got, "drained GPU pool") {
		t.Errorf("MCP get_incident gives ACME-0001 to a reader not on the allow-list:\n%.300s", got)
	}

}

// A reload keeps both views whole and apart: a new team incident reaches
// the allowed reader only, a new public incident both.
func TestRestrictedLayerReload(t *testing.T) {
	pub := t.TempDir()
	s, team := restrictedServer(t, pub)
	src, _ := os.ReadFile(filepath.Join(team, "incidents", "ACME-0002-driver-upgrade-stalled.md"))
	write(t, filepath.Join(team, "incidents", "ACME-0003-copy.md"), strings.Replace(string(src), "id: ACME-0002", "id: ACME-0003", 1))
	src, _ = os.ReadFile(filepath.Join(pub, "incidents", "IL-9004-blocked-image-pulls.md"))
	write(t, filepath.Join(pub, "incidents", "IL-9005-added.md"), strings.Replace(string(src), "id: IL-9004", "id: IL-9005", 1))
	eventually(t, 60*time.Second, "both changes are served", func() bool {
		a3, _ := fetchAs(t, s, allowed, "/incidents/ACME-0003", nil)
		a5, _ := fetchAs(t, s, allowed, "/incidents/IL-9005", nil)
		o5, _ := fetchAs(t, s, other, "/incidents/IL-9005", nil)
		return a3 == 200 && a5 == 200 && o5 == 200
	})
	// A broken team file is the team's problem: listed for the allowed
	// reader, not for the others.
	write(t, filepath.Join(team, "incidents", "ACME-0009-broken.md"), "---\nid: [ACME-0009\n---\n")
	eventually(t, 60*time.Second, "the broken team file is reported", func() bool {
		_, body := fetchAs(t, s, allowed, "/api/problems", nil)
		return strings.Contains(body, "ACME-0009-broken.md")
	})
	if _, body := fetchAs(t, s, other, "/api/problems", nil); strings.Contains(body, "ACME-0009") || strings.Contains(body, `"layer":"acme"`) {
		t.Errorf("/api/problems shows the team's problems to a reader not on the allow-list:\n%.400s", body)
	}
	if code, _ := fetchAs(t, s, other, "/incidents/ACME-0003", nil); code != http.StatusNotFound {
		t.Errorf("after the reload, ACME-0003 for a reader not on the allow-list: %d, want 404", code)
	}
	if _, body := fetchAs(t, s, other, "/api/export.csv", nil); strings.Contains(body, "ACME-") || !strings.Contains(body, "IL-9005") {
		t.Error("after the reload, the export of a reader not on the allow-list is not the public library's")
	}
}

// The gap checks are chosen per caller like the rest: each view has its
// own service (and cache), and only an allowed identity gets the whole
// library's.
func TestViewGapsPicksByIdentity(t *testing.T) {
	all, public := gaps.NewService(gaps.ServiceOptions{}), gaps.NewService(gaps.ServiceOptions{})
	v := viewGaps{all: all, public: public, policy: access.Policy{Header: "X-Forwarded-Email", Users: []string{"sre@acme.example"}}}
	for id, want := range map[string]*gaps.Service{"SRE@acme.example": all, "eve@elsewhere.org": public, "": public} {
		if got := v.pick(access.WithIdentity(context.Background(), id)); got != want {
			t.Errorf("identity %q gets the %s checks", id, map[bool]string{true: "whole library's", false: "public"}[got == all])
		}
	}
	if got := (viewGaps{all: all}).pick(context.Background()); got != all {
		t.Error("without a restricted layer the checks are not the library's")
	}
}

// A restricted layer nobody may read, or a name no layer has, refuses to
// start rather than serve the layer to the wrong people or to nobody.
func TestRestrictLayerRefusals(t *testing.T) {
	team := filepath.Join(fixtures, "layers", "acme")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--restrict-layer", "acme", "--auth-header", "X-Forwarded-Email"}, "--allow-users or --allow-domains"},
		{[]string{"--restrict-layer", "acme"}, "needs --auth-header"},
		{[]string{"--restrict-layer", "public", "--auth-header", "X", "--allow-users", "a@b.c"}, "cannot be restricted"},
	} {
		_, err := parseServeConfig(append([]string{"--library", team}, tc.args...), noEnv, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	cfg, err := parseServeConfig([]string{"--library", team, "--data", t.TempDir(), "--restrict-layer", "acne", "--auth-header", "X", "--allow-users", "a@b.c"}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newApp(context.Background(), cfg, io.Discard); err == nil || !strings.Contains(err.Error(), `no layer is named "acne"`) {
		t.Errorf("--restrict-layer acne: %v, want an error naming the missing layer", err)
	}
}
