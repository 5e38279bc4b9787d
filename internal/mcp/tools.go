package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/access"
	"casebook/internal/content"
	"casebook/internal/gaps"
	"casebook/internal/live"
	"casebook/internal/search"
	"casebook/internal/selection"
	"casebook/internal/snapshot"
	"casebook/internal/store"
)

// tools holds what every tool handler shares.
type tools struct {
	src  Source
	opts Options
	log  *slog.Logger
}

// register adds every tool.
func (t *tools) register(s *sdk.Server) {
	add(s, t, classifyTool, t.classify)
	add(s, t, vocabTool, t.vocab)
	add(s, t, searchTool, t.search)
	add(s, t, listTool, t.list)
	add(s, t, incidentTool, t.incident)
	add(s, t, playbookTool, t.playbook)
	add(s, t, termTool, t.term)
	add(s, t, trendsTool, t.trends)
	if t.opts.Live.Enabled() {
		add(s, t, podTool, t.pod)
	}
	if t.opts.Gaps != nil {
		add(s, t, gapsTool, t.gaps)
	}
	if t.opts.Drills != nil {
		add(s, t, drillsTool, t.listDrills)
		add(s, t, drillBriefTool, t.drillBrief)
	}
}

// toolSpec describes a tool. tweak adjusts the schema derived from the
// input type with what struct tags cannot say (enums, ranges).
type toolSpec[In any] struct {
	name, title, description string
	openWorld                bool
	tweak                    func(props map[string]*jsonschema.Schema)
	// cost is what a call spends in the portal's limiter before it runs
	// (1 for classify and cluster reads); metered tools are also charged
	// for the time they took (search), so a call in a batch is counted
	// like any other.
	cost    float64
	metered bool
	// live marks the tools that read the cluster: only callers the access
	// policy allows to triage live may call them.
	live bool
}

// handlerFunc is a tool body: it gets the Content current at the call and
// returns its output or an error.
type handlerFunc[In, Out any] func(ctx context.Context, c *content.Content, req *sdk.CallToolRequest, in In) (Out, error)

// add registers a read-only tool. Its handler never takes the process
// down: a panic becomes a tool error, and errors that are not the caller's
// fault are logged and reported without internals.
func add[In, Out any](s *sdk.Server, t *tools, spec toolSpec[In], h handlerFunc[In, Out]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", spec.name, err)) // a programming error, caught by any test
	}
	if spec.tweak != nil {
		spec.tweak(in.Properties)
	}
	if p := in.Properties["lang"]; p != nil {
		p.Enum, p.Description = []any{"en", "ko"}, langDoc
	}
	openWorld := spec.openWorld
	tool := &sdk.Tool{Name: spec.name, Title: spec.title, Description: spec.description, InputSchema: in,
		Annotations: &sdk.ToolAnnotations{Title: spec.title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &openWorld}}
	sdk.AddTool(s, tool, func(ctx context.Context, req *sdk.CallToolRequest, args In) (res *sdk.CallToolResult, out Out, err error) {
		defer func() {
			if v := recover(); v != nil {
				t.log.Error("mcp tool panicked", "tool", spec.name, "panic", v, "stack", string(debug.Stack()))
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("%s failed with an internal error; the server log has the details", spec.name)
			}
		}()
		who := t.caller(req)
		// The library as this caller may see it: without the restricted
		// layers (--restrict-layer) unless they are on the allow-list.
		c := t.src.CurrentFor(t.opts.Policy.Allowed(who.Identity))
		if c == nil {
			return nil, out, errors.New("the library is still loading; try again in a moment")
		}
		if spec.live {
			if err := t.opts.Policy.LiveTriage(who); err != nil {
				return nil, out, err
			}
		}
		if spec.cost > 0 || spec.metered {
			if err := t.opts.Limiter.Take(who, spec.cost); err != nil {
				return nil, out, err
			}
		}
		start := time.Now()
		out, err = h(access.WithIdentity(ctx, who.Identity), c, req, args)
		if spec.metered {
			t.opts.Limiter.Charge(who, access.CostOf(time.Since(start)))
		}
		if err != nil && !callerError(err) {
			t.log.Error("mcp tool failed", "tool", spec.name, "err", err)
			return nil, out, fmt.Errorf("%s failed with an internal error; the server log has the details", spec.name)
		}
		return nil, out, err
	})
}

// argError is an error in the arguments, worded for the assistant to fix
// its call.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func badArg(format string, args ...any) error { return &argError{fmt.Sprintf(format, args...)} }

// callerError reports whether err is the caller's to fix, or a refusal,
// so its message is shown as it is: the same words the web pages and the
// CLI show for the same error.
func callerError(err error) bool {
	var ae *argError
	var qe *search.QueryError
	for _, kind := range []error{selection.ErrInvalid, store.ErrNotFound, access.ErrDenied, access.ErrLimited, live.ErrInvalid,
		live.ErrOff, snapshot.ErrNamespaceNotAllowed, snapshot.ErrForbidden, snapshot.ErrNotFound, snapshot.ErrUnavailable, gaps.ErrNoCluster} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return errors.As(err, &ae) || errors.As(err, &qe)
}

// ClientAddrHeader carries the client's address from the portal's router
// to the tools; Handler sets it on every request (replacing whatever the
// client sent), since the SDK hands the tools the header but not the
// connection.
const ClientAddrHeader = "X-Casebook-Client-Addr"

// caller is who makes a tool call: over /mcp the identity header the
// portal trusts and the client's address; over stdio (no header) the one
// local user.
func (t *tools) caller(req *sdk.CallToolRequest) access.Caller {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return access.Caller{Addr: "stdio"}
	}
	h := req.Extra.Header
	c := access.Caller{Addr: h.Get(ClientAddrHeader)}
	if t.opts.Policy.Header != "" {
		c.Identity = h.Get(t.opts.Policy.Header)
	}
	return c
}

// enum restricts a string property to values.
func enum(props map[string]*jsonschema.Schema, name string, values ...string) {
	for _, v := range values {
		props[name].Enum = append(props[name].Enum, v)
	}
}

// between bounds an integer property.
func between(props map[string]*jsonschema.Schema, name string, lo, hi float64) {
	props[name].Minimum, props[name].Maximum = &lo, &hi
}
