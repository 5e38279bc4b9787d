// Package mcp offers Casebook to AI assistants as a Model Context Protocol
// server: read-only tools over the incident library, the playbooks, the
// taxonomy and the triage classifier, with typed inputs and outputs whose
// JSON schemas the SDK derives from the Go types below.
//
// Nothing here writes anything. That follows the library's own advice on
// assistants in operations (playbooks/ai-sre-safety.md): start read-only,
// gather evidence, propose; changes go through people and review.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/access"
	"casebook/internal/content"
	"casebook/internal/live"
)

// Source publishes the current library; content.Loader satisfies it. Every
// tool call reads the Content current at that moment, so a reload is seen
// by the next call without reconnecting, and as its caller may see it:
// with the restricted layers only for identities on the allow-list.
type Source interface {
	CurrentFor(seesRestricted bool) *content.Content
}

// Metrics receives triage outcomes, as the web wizard reports them; nil
// records nothing.
type Metrics interface {
	TriageOutcome(route, via string)
}

// Options configure the server.
type Options struct {
	Version string
	Log     *slog.Logger // nil discards
	Metrics Metrics
	// Live is live triage; when it is nil or not Enabled, triage_pod is
	// not offered at all rather than offered and failing.
	Live *live.Service
	// Gaps runs the gap checks against the cluster; nil (no cluster) leaves
	// check_cluster_gaps out.
	Gaps GapChecker
	// Drills holds the library's drills for list_drills and
	// get_drill_brief; nil leaves both out.
	Drills Drills
	// Policy and Limiter are the portal's (over /mcp): who may read the
	// cluster, and every caller's budget for classify, search and cluster
	// reads. Over stdio both are zero: one local user.
	Policy  access.Policy
	Limiter *access.Limiter
}

// instructions tell a connected assistant what Casebook is and how to use it
// safely; clients show them to the model once per session.
const instructions = `Casebook is a read-only library of real, public Kubernetes/GPU/AI infrastructure incidents,
step-by-step triage playbooks, and a classifier that routes pasted errors to the right playbook section.

How to use it:
- When the user pastes an error, event, log or kubectl output, call classify_error first, then get_playbook
  with the route's playbook and section to read what to check next.
- To turn the user's words (English or Korean) into filters, call vocab; pass the ids it returns as filters
  to list_incidents or search_incidents.
- To find past incidents like the current one, use search_incidents (free text) or list_incidents (filters),
  then get_incident for the full write-up. Cite incidents by id and link their url.

Every tool only reads. Treat what they return as evidence and proposals, not as actions: suggest read-only
commands first, and route any change through the user's review, a server-side dry run and their GitOps
process (see the ai-sre-safety playbook).`

// NewServer returns an MCP server with Casebook's tools. One server serves
// any number of sessions, over HTTP and stdio alike.
func NewServer(src Source, opts Options) *sdk.Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "casebook", Title: "Casebook incident library", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: opts.Log})
	t := &tools{src: src, opts: opts, log: opts.Log}
	t.register(s)
	return s
}

// HTTPOptions configure the streamable HTTP endpoint.
type HTTPOptions struct {
	// BehindProxy turns off the SDK's DNS-rebinding guard, which refuses
	// requests that reach a loopback address under another host name. A
	// sign-in proxy in the same pod (oauth2-proxy as a sidecar) does
	// exactly that; with an identity header required, a rebinding page
	// cannot supply the identity anyway.
	BehindProxy bool
	// HostsChecked says the portal's own host allow-list guards this
	// handler (web.HostPolicy, on every route), which also turns the
	// SDK's guard off: two guards with different rules would answer a
	// name the operator allowed on the pages and refuse it on /mcp (a
	// reverse proxy on the same machine forwarding to 127.0.0.1 with the
	// public name as Host).
	HostsChecked bool
}

// maxBody is the largest MCP request: a 1 MiB paste for classify_error with
// room for JSON escaping, in line with the portal's own 2 MiB limit.
const maxBody = 2 << 20

// MaxBatch is the most calls one JSON-RPC batch may hold. Each call is
// admitted by the limiter like a call of its own; the cap keeps one POST
// from queuing minutes of work before the limiter has a say.
const MaxBatch = 8

// Handler serves s over streamable HTTP (mounted at /mcp). It is stateless
// and answers with plain JSON: every tool is a single read, and a
// stateless endpoint needs no session affinity, so it works behind a
// Service with several replicas like the rest of the portal. It records
// the client's address for the tools' limiter and refuses batches of more
// than MaxBatch calls.
func Handler(s *sdk.Server, o HTTPOptions) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		DisableLocalhostProtection: o.BehindProxy || o.HostsChecked,
		MaxRequestBodyBytes:        maxBody,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(ClientAddrHeader, r.RemoteAddr)
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
			if err != nil || len(body) > maxBody {
				rpcError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d MiB", maxBody>>20))
				return
			}
			if n := batchLen(body); n > MaxBatch {
				rpcError(w, http.StatusBadRequest, fmt.Sprintf("batch of %d calls; at most %d per request", n, MaxBatch))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
}

// batchLen counts the messages of a JSON-RPC batch (a JSON array); 0 for a
// single message or anything that is not an array.
func batchLen(body []byte) int {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return 0
	}
	n := 0
	for dec.More() {
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return n + 1
		}
		n++
	}
	return n
}

// rpcError answers with a JSON-RPC error object, which MCP clients show.
func rpcError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32600, "message": msg}})
}

// ServeIO serves s over newline-delimited JSON on r and w (stdin and stdout
// for "casebook mcp") until the client disconnects or ctx ends.
func ServeIO(ctx context.Context, s *sdk.Server, r io.Reader, w io.Writer) error {
	err := s.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}})
	if err == context.Canceled {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
