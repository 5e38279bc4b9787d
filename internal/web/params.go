package web

import (
	"net/url"
	"sort"
	"strconv"

	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/selection"
)

// listState is everything the library and search pages keep in the URL:
// the parsed selection, and the page size this page uses by default, which
// links leave out.
type listState struct {
	selection.Selection
	defaultPer int
}

// badRequest is a client error with a message that names the fix: msg in
// English, m the same as a catalogue message when there is one.
type badRequest struct {
	msg string
	m   i18n.Msg
}

func (e badRequest) Error() string { return e.msg }

// Message is the catalogue message (i18n.Localized); zero when the text
// has none.
func (e badRequest) Message() i18n.Msg { return e.m }

// badRequestMsg is a client error from the catalogue.
func badRequestMsg(key string, args ...any) badRequest {
	m := i18n.M(key, args...)
	return badRequest{m.English(), m}
}

// badRequestOf makes err a client error, keeping its catalogue message.
func badRequestOf(err error) badRequest {
	m, _ := i18n.MessageOf(err)
	return badRequest{err.Error(), m}
}

// values renders the state back into a query string.
func (st listState) values() url.Values { return st.Selection.Values(st.defaultPer) }

func (st listState) href(path string) string {
	if e := st.Selection.Encode(st.defaultPer); e != "" {
		return path + "?" + e
	}
	return path
}

// clone copies the state deeply so link builders can change it freely.
func (st listState) clone() listState {
	c := st
	c.Filter.Terms = map[library.Facet][]string{}
	for k, v := range st.Filter.Terms {
		c.Filter.Terms[k] = append([]string(nil), v...)
	}
	c.Filter.Orgs = append([]string(nil), st.Filter.Orgs...)
	c.Filter.Years = append([]int(nil), st.Filter.Years...)
	c.Filter.Layers = append([]string(nil), st.Filter.Layers...)
	return c
}

// toggle returns the state with param=value added or removed, back on page 1.
func (st listState) toggle(param, value string) listState {
	c := st.clone()
	c.Page = 1
	switch param {
	case "org":
		c.Filter.Orgs = toggleStr(c.Filter.Orgs, value)
	case "layer":
		c.Filter.Layers = toggleStr(c.Filter.Layers, value)
	case "year":
		y, _ := strconv.Atoi(value)
		if containsInt(c.Filter.Years, y) {
			c.Filter.Years = removeInt(c.Filter.Years, y)
		} else {
			c.Filter.Years = append(c.Filter.Years, y)
			sort.Sort(sort.Reverse(sort.IntSlice(c.Filter.Years)))
		}
	default:
		for _, fp := range selection.FacetParams {
			if fp.Param == param {
				c.Filter.Terms[fp.Facet] = toggleStr(c.Filter.Terms[fp.Facet], value)
			}
		}
	}
	return c
}

func (st listState) selected(param, value string) bool {
	switch param {
	case "org":
		return contains(st.Filter.Orgs, value)
	case "layer":
		return contains(st.Filter.Layers, value)
	case "year":
		y, _ := strconv.Atoi(value)
		return containsInt(st.Filter.Years, y)
	}
	for _, fp := range selection.FacetParams {
		if fp.Param == param {
			return contains(st.Filter.Terms[fp.Facet], value)
		}
	}
	return false
}

func toggleStr(list []string, v string) []string {
	for i, x := range list {
		if x == v {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return append(list, v)
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func removeInt(list []int, v int) []int {
	var out []int
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
