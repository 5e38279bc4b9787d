package templates

import "github.com/a-h/templ"

// selectedAttrs marks an active filter value. aria-pressed is not allowed on
// a link, and the value is a link so that filters work without JavaScript.
// The class is set here too, not with class={ templ.KV(…) }: templ's class
// processing for each of the few hundred facet values was a twentieth of
// the search page's CPU.
func selectedAttrs(selected bool) templ.OrderedAttributes {
	if selected {
		return selectedOn
	}
	return nil
}

var selectedOn = templ.OrderedAttributes{{Key: "class", Value: "selected"}, {Key: "aria-current", Value: "true"}}

// termClass is the class of a term link of facet f, written as a plain
// attribute for the same reason (cards and the graph panel list dozens).
func termClass(f string) templ.OrderedAttributes {
	return templ.OrderedAttributes{{Key: "class", Value: "term term-" + f}}
}
