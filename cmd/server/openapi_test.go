package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"gopkg.in/yaml.v3"
)

// openAPI is the part of docs/openapi.yaml the checks read. Schemas stay raw
// so they can be handed to a JSON Schema validator as written.
type openAPI struct {
	OpenAPI    string                          `yaml:"openapi"`
	Paths      map[string]map[string]operation `yaml:"paths"`
	Components struct {
		Parameters map[string]parameter `yaml:"parameters"`
		Responses  map[string]response  `yaml:"responses"`
		Schemas    map[string]any       `yaml:"schemas"`
	} `yaml:"components"`
}

type operation struct {
	// NeedsLiveTriage marks an operation that answers only when the server
	// reads a cluster; the test server has none.
	NeedsLiveTriage bool        `yaml:"x-needs-live-triage"`
	Parameters      []parameter `yaml:"parameters"`
	RequestBody     *struct {
		Content map[string]struct {
			Example any `yaml:"example"`
		} `yaml:"content"`
	} `yaml:"requestBody"`
	Responses map[string]response `yaml:"responses"`
}

type parameter struct {
	Ref      string `yaml:"$ref"`
	Name     string `yaml:"name"`
	In       string `yaml:"in"`
	Required bool   `yaml:"required"`
	Example  any    `yaml:"example"`
}

type response struct {
	Ref     string                          `yaml:"$ref"`
	Content map[string]struct{ Schema any } `yaml:"content"`
}

func loadOpenAPI(t *testing.T) (*openAPI, []byte) {
	t.Helper()
	src, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPI
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatalf("docs/openapi.yaml: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi %q, want 3.1.x", doc.OpenAPI)
	}
	return &doc, src
}

// TestOpenAPIRefsResolve: every $ref in the document points at something.
func TestOpenAPIRefsResolve(t *testing.T) {
	_, src := loadOpenAPI(t)
	var root any
	if err := yaml.Unmarshal(src, &root); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if _, err := pointer(root, ref); err != nil {
					t.Errorf("$ref %s: %v", ref, err)
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(root)
}

// TestOpenAPIDocumentsEveryRoute walks the live router: every /api route
// (and the operational ones) must be in docs/openapi.yaml with its method,
// and everything documented must be routed.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	cfg, err := parseServeConfig([]string{"--data", t.TempDir()}, noEnv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newApp(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	routes, ok := a.http.Handler.(chi.Routes)
	if !ok {
		t.Fatalf("the server's handler is a %T, not a chi router", a.http.Handler)
	}
	routed := map[string][]string{}
	err = chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routed[route] = append(routed[route], strings.ToLower(method))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for route, methods := range routed {
		if !strings.HasPrefix(route, "/api/") && !slices.Contains([]string{"/healthz", "/readyz", "/metrics", "/mcp"}, route) {
			continue
		}
		ops, ok := doc.Paths[route]
		if !ok {
			t.Errorf("%s is routed but not in docs/openapi.yaml", route)
			continue
		}
		for _, m := range methods {
			// Handle() routes every method; the document lists the ones
			// that mean something.
			if _, ok := ops[m]; !ok && strings.HasPrefix(route, "/api/") {
				t.Errorf("%s %s is routed but not documented", strings.ToUpper(m), route)
			}
		}
	}
	for path, ops := range doc.Paths {
		for m := range ops {
			if !slices.Contains(routed[path], m) {
				t.Errorf("docs/openapi.yaml documents %s %s, which the router does not have", strings.ToUpper(m), path)
			}
		}
	}
}

// TestOpenAPIOperationsAnswer calls every documented operation on a real
// server with the shipped library, once with only the required parameters
// and once with every example, and checks the status and that the JSON
// body matches the documented schema.
func TestOpenAPIOperationsAnswer(t *testing.T) {
	doc, src := loadOpenAPI(t)
	defs := schemaDefs(t, src)
	s := hardStart(t, "--data", t.TempDir())
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for _, examples := range []bool{false, true} {
				name := fmt.Sprintf("%s %s examples=%v", strings.ToUpper(method), path, examples)
				t.Run(name, func(t *testing.T) {
					req := doc.request(t, s.URL, method, path, op, examples)
					if req.Header.Get("Accept") == "" {
						req.Header.Set("Accept", "application/json")
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					defer resp.Body.Close()
					body, _ := io.ReadAll(resp.Body)
					if op.NeedsLiveTriage {
						// Routed and refusing for the documented reason,
						// not a 404 for an unknown path.
						if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "not configured") {
							t.Errorf("%s without a cluster: %d %.200s; want 404 'not configured'", req.URL, resp.StatusCode, body)
						}
						return
					}
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("%s: status %d, want 200; body %.300s", req.URL, resp.StatusCode, body)
					}
					doc.checkBody(t, defs, op, resp.Header.Get("Content-Type"), body)
				})
			}
		}
	}
}

// request builds a call of op from the document's examples.
func (doc *openAPI) request(t *testing.T, base, method, path string, op operation, examples bool) *http.Request {
	t.Helper()
	q := url.Values{}
	header := http.Header{}
	for _, p := range op.Parameters {
		if p.Ref != "" {
			p = doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
		}
		if p.Example == nil || (!p.Required && !examples) {
			if p.Required {
				t.Fatalf("required parameter %s has no example to call with", p.Name)
			}
			continue
		}
		vals := []string{fmt.Sprint(p.Example)}
		if list, ok := p.Example.([]any); ok {
			vals = nil
			for _, v := range list {
				vals = append(vals, fmt.Sprint(v))
			}
		}
		switch p.In {
		case "path":
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(vals[0]))
		case "query":
			q[p.Name] = vals
		case "header":
			header.Set(p.Name, vals[0])
		}
	}
	var body io.Reader
	if op.RequestBody != nil {
		ex := op.RequestBody.Content["application/json"].Example
		if ex == nil {
			t.Fatal("request body has no application/json example")
		}
		b, _ := json.Marshal(ex)
		body = bytes.NewReader(b)
		header.Set("Content-Type", "application/json")
	}
	target := base + path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	req, err := http.NewRequest(strings.ToUpper(method), target, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	return req
}

// checkBody matches the response's content type against the documented ones
// and validates a JSON body against its schema.
func (doc *openAPI) checkBody(t *testing.T, defs map[string]any, op operation, contentType string, body []byte) {
	t.Helper()
	r := op.Responses["200"]
	if r.Ref != "" {
		r = doc.Components.Responses[strings.TrimPrefix(r.Ref, "#/components/responses/")]
	}
	var schema any
	found := false
	for ct, c := range r.Content {
		if strings.HasPrefix(contentType, ct) {
			schema, found = c.Schema, true
		}
	}
	if !found {
		t.Fatalf("Content-Type %q is not documented for 200", contentType)
	}
	if !strings.HasPrefix(contentType, "application/json") || schema == nil {
		return
	}
	var instance any
	if err := json.Unmarshal(body, &instance); err != nil {
		t.Fatalf("body is not JSON: %v", err)
	}
	if err := validate(defs, schema, instance); err != nil {
		t.Errorf("body does not match the documented schema: %v\nbody: %.500s", err, body)
	}
}

// schemaDefs returns components.schemas as JSON Schema $defs: OpenAPI 3.1
// schemas are JSON Schema 2020-12, only their references point elsewhere.
func schemaDefs(t *testing.T, src []byte) map[string]any {
	t.Helper()
	var root map[string]any
	if err := yaml.Unmarshal(src, &root); err != nil {
		t.Fatal(err)
	}
	return rewriteRefs(root["components"].(map[string]any)["schemas"]).(map[string]any)
}

func rewriteRefs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, c := range v {
			if s, ok := c.(string); ok && k == "$ref" {
				c = strings.Replace(s, "#/components/schemas/", "#/$defs/", 1)
			}
			out[k] = rewriteRefs(c)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = rewriteRefs(c)
		}
		return out
	}
	return v
}

func validate(defs map[string]any, schema, instance any) error {
	root := rewriteRefs(schema).(map[string]any)
	root["$defs"] = defs
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	data, err := json.Marshal(root)
	if err != nil {
		return err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("resolve schema: %w", err)
	}
	return rs.Validate(instance)
}

// pointer resolves a local JSON pointer such as #/components/schemas/Error.
func pointer(root any, ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("not a local reference")
	}
	cur := root
	for _, part := range strings.Split(ref[2:], "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", part)
		}
		if cur, ok = m[part]; !ok {
			return nil, fmt.Errorf("no %q", part)
		}
	}
	return cur, nil
}
