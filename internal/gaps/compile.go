package gaps

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"

	"casebook/internal/inventory"
	"casebook/internal/library"
)

// costLimit bounds one evaluation of one expression, in CEL's cost units
// (roughly one per element visited), so a check that would walk pods × pods
// on a large cluster stops with an error instead of running for minutes.
const costLimit = 50_000_000

// placeholder matches {word} in a message.
var placeholder = regexp.MustCompile(`\{[a-zA-Z_]+\}`)

// compile type-checks a parsed check's expressions and builds their
// programs. Every problem names the field's line; a check with problems
// must not run.
func compile(c *Check) []library.Problem {
	var problems []library.Problem
	bad := func(field, format string, args ...any) {
		problems = append(problems, library.Problem{Path: c.Path, Line: c.lineOf(field), Msg: fmt.Sprintf(format, args...)})
	}
	for _, k := range c.Kinds {
		if _, ok := inventory.Kinds[k]; !ok {
			bad("kinds", "unknown kind %q; the inventory holds %s", k, strings.Join(knownKinds(), ", "))
		}
	}
	env, err := newEnv()
	if err != nil {
		bad("condition", "CEL environment: %v", err)
		return problems
	}
	switch {
	case c.Each != "":
		t, ok := kindTypes[c.Each]
		if !ok {
			bad("each", "unknown kind %q; the inventory holds %s", c.Each, strings.Join(knownKinds(), ", "))
			return problems
		}
		if !slices.Contains(c.Kinds, c.Each) {
			bad("each", "each: %s, but %s is not among kinds", c.Each, c.Each)
		}
		if c.Objects != "" {
			bad("objects", "objects is for checks over the whole inventory; with each, the objects are those the condition holds for")
		}
		if c.Condition == "" {
			bad("condition", "a check with each needs a condition, evaluated on every object")
		}
		if env, err = env.Extend(cel.Variable("object", t)); err != nil {
			bad("each", "CEL environment: %v", err)
			return problems
		}
	case c.Objects == "":
		bad("condition", "a check without each must say which objects it found in objects (a CEL list of strings)")
	case c.Detail != "":
		bad("detail", "detail is per object and needs each")
	}
	build := func(field, src string, want *cel.Type) cel.Program {
		if src == "" {
			return nil
		}
		ast, iss := env.Compile(src)
		if iss.Err() != nil {
			bad(field, "%s does not compile: %s", field, oneLine(iss.Err().Error()))
			return nil
		}
		if !ast.OutputType().IsExactType(want) {
			bad(field, "%s is a %s, want a %s", field, ast.OutputType(), want)
			return nil
		}
		for _, k := range kindsUsed(ast) {
			if !slices.Contains(c.Kinds, k) {
				bad(field, "%s reads %s, which is not among kinds %v", field, k, c.Kinds)
			}
		}
		prg, err := env.Program(ast, cel.CostLimit(costLimit), cel.InterruptCheckFrequency(100))
		if err != nil {
			bad(field, "%s: %v", field, err)
			return nil
		}
		return prg
	}
	c.condition = build("condition", c.Condition, cel.BoolType)
	c.detail = build("detail", c.Detail, cel.StringType)
	c.objects = build("objects", c.Objects, cel.ListType(cel.StringType))
	for _, p := range placeholder.FindAllString(c.Message, -1) {
		if p != "{count}" && p != "{objects}" {
			bad("message", "message has %s; only {count} and {objects} are replaced", p)
		}
	}
	return problems
}

// kindsUsed lists the inventory kinds an expression reads: inventory.KIND,
// pods through podsByNode, podsByOwner or podsByNamespace, and
// EndpointSlices through slicesByService.
func kindsUsed(a *cel.Ast) []string {
	var out []string
	celast.PreOrderVisit(a.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		switch e.Kind() {
		case celast.SelectKind:
			sel := e.AsSelect()
			if op := sel.Operand(); op.Kind() == celast.IdentKind && op.AsIdent() == "inventory" {
				if _, ok := inventory.Kinds[sel.FieldName()]; ok {
					out = append(out, sel.FieldName())
				}
			}
		case celast.IdentKind:
			switch e.AsIdent() {
			case "podsByNode", "podsByOwner", "podsByNamespace":
				out = append(out, "pods")
			case "slicesByService":
				out = append(out, "endpointSlices")
			}
		}
	}))
	return out
}

func knownKinds() []string {
	var out []string
	for k := range inventory.Kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
