package web

import (
	"context"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"casebook/internal/content"
	"casebook/internal/i18n"
	"casebook/internal/triage"
	"casebook/web/templates"
)

// causeNumbering is the "Cause C:" / "원인 C:" a playbook puts before a
// cause's heading: it orders the playbook, it does not name the result.
var causeNumbering = regexp.MustCompile(`^(Cause|원인)\s+[A-Z]\s*[:：]\s*`)

// generalSections are a playbook's standard parts; a route that lands on
// one is named by the playbook instead.
var generalSections = map[string]bool{"detect": true, "scope": true, "mitigate": true, "root-cause": true, "verify": true, "record": true}

// routeTitle names a route for people, in the page's language: the heading
// of the playbook section that treats it, without the cause's letter, or
// the playbook's title when the section is a general one. The route id is
// the fallback when the playbook did not load.
func routeTitle(ctx context.Context, c *content.Content, route, playbook, section string) string {
	pr := printer(ctx)
	pb, err := c.Store.Playbook(ctx, playbook)
	if err != nil {
		return route
	}
	if !generalSections[section] {
		if h := causeNumbering.ReplaceAllString(headingTitle(pr, pb, section), ""); h != "" {
			return upperFirst(h)
		}
	}
	return playbookTitle(pr, pb)
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// specificsView renders what the evidence names, in the page's language;
// nil when it names nothing.
func specificsView(pr *i18n.Printer, sp triage.Specifics) *templates.SpecificsView {
	if sp.Empty() {
		return nil
	}
	v := &templates.SpecificsView{}
	for _, t := range sp.Taints {
		v.Taints = append(v.Taints, templates.TaintView{Taint: t.String(), Nodes: nodesText(pr, t.Nodes, t.NodeCount), Toleration: t.Toleration()})
	}
	for _, s := range sp.Selectors {
		sv := templates.SelectorView{Label: s.Key + "=" + s.Wanted, Nodes: nodesText(pr, nil, s.NodeCount), Command: s.Command()}
		for _, h := range s.Have {
			sv.Have = append(sv.Have, pr.T("triage.label_value_on", "value", s.Key+"="+h.Value, "nodes", nodesText(pr, h.Nodes, 0)))
		}
		v.Selectors = append(v.Selectors, sv)
	}
	for _, s := range sp.Shortfalls {
		fv := templates.ShortfallView{Resource: s.Resource, Requested: s.Requested, Total: s.Total, Count: nodesText(pr, nil, s.NodeCount)}
		for _, n := range s.Nodes {
			fv.Nodes = append(fv.Nodes, pr.T("triage.node_short", "node", n.Node, "free", n.Free, "short", n.Short))
		}
		v.Shortfalls = append(v.Shortfalls, fv)
	}
	return v
}

// nodesText names up to five nodes and counts the rest, or says how many
// when the names are not known; "" when neither is.
func nodesText(pr *i18n.Printer, names []string, count int) string {
	const show = 5
	switch {
	case len(names) > show:
		return strings.Join(names[:show], ", ") + " " + pr.T("triage.and_more", "count", len(names)-show)
	case len(names) > 0:
		return strings.Join(names, ", ")
	case count > 0:
		return pr.N("count.nodes", count)
	}
	return ""
}

// questionLeads lists, for each answer of n, the results a walk can still
// end in after it, named for people and linked to their playbook sections:
// what a person who is not sure chooses by.
func questionLeads(ctx context.Context, c *content.Content, cat *triage.Catalog, n *triage.Node) [][]templates.Link {
	out := make([][]templates.Link, len(n.Choices))
	for i, ch := range n.Choices {
		next, ok := cat.Node(ch.Next)
		if !ok {
			continue
		}
		for _, o := range cat.Reachable(next) {
			out[i] = append(out[i], templates.Link{Label: routeTitle(ctx, c, o.Outcome.Route, o.Outcome.Playbook, o.Outcome.Section),
				Href: "/playbooks/" + o.Outcome.Playbook + "#" + o.Outcome.Section})
		}
	}
	return out
}
