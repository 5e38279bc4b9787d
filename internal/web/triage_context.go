package web

import (
	"net/url"
	"strings"

	"casebook/internal/triage"
	"casebook/web/templates"
)

// The pod, namespace, node and container a paste named travel in the links
// of its result (the playbook section, the wizard), so every command down
// the path names them. They are query parameters, validated as Kubernetes
// names by triage.NewContext on the way in.

var contextParams = []string{"pod", "namespace", "node", "container"}

// contextOf reads the workload context of a request's query.
func contextOf(q url.Values) *triage.Context {
	return triage.NewContext(q.Get("pod"), q.Get("namespace"), q.Get("node"), q.Get("container"))
}

// withContext adds c to href's query, before its #fragment.
func withContext(href string, c *triage.Context) string {
	if c == nil {
		return href
	}
	href, frag, hasFrag := strings.Cut(href, "#")
	v := url.Values{}
	for i, val := range []string{c.Pod, c.Namespace, c.Node, c.Container} {
		if val != "" {
			v.Set(contextParams[i], val)
		}
	}
	sep := "?"
	if strings.Contains(href, "?") {
		sep = "&"
	}
	href += sep + v.Encode()
	if hasFrag {
		href += "#" + frag
	}
	return href
}

// fillAll fills the placeholders of every command.
func fillAll(c *triage.Context, cmds []string) []string {
	if c == nil {
		return cmds
	}
	out := make([]string, len(cmds))
	for i, cmd := range cmds {
		out[i] = c.Fill(cmd)
	}
	return out
}

// fillHTML fills the placeholders of a rendered playbook section, where
// they are escaped (&lt;pod&gt;). Names hold no character HTML escapes.
func fillHTML(c *triage.Context, html string) string {
	if c == nil {
		return html
	}
	return strings.NewReplacer("&lt;pod&gt;", or(c.Pod, "&lt;pod&gt;"), "&lt;namespace&gt;", or(c.Namespace, "&lt;namespace&gt;"),
		"&lt;node&gt;", or(c.Node, "&lt;node&gt;"), "&lt;gpu-node&gt;", or(c.Node, "&lt;gpu-node&gt;"),
		"&lt;container&gt;", or(c.Container, "&lt;container&gt;")).Replace(html)
}

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

// contextHidden is the context other than the node, as the hidden fields
// of the form that asks for the node.
func contextHidden(c *triage.Context) []templates.Field {
	if c == nil {
		return nil
	}
	var out []templates.Field
	for i, v := range []string{c.Pod, c.Namespace, "", c.Container} {
		if v != "" {
			out = append(out, templates.Field{Name: contextParams[i], Value: v})
		}
	}
	return out
}
