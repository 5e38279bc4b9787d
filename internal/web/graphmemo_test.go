package web_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The whole-library graph is memoised; answers must not change with it.
func TestGraphMemoKeepsAnswers(t *testing.T) {
	h := newHandler(t)
	var first, second, filtered, again map[string]any
	getJSON(t, h, "/api/graph", 200, &first)
	getJSON(t, h, "/api/graph", 200, &second)
	getJSON(t, h, "/api/graph?domain=gpu", 200, &filtered)
	getJSON(t, h, "/api/graph", 200, &again)
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("second unfiltered graph differs (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("unfiltered graph changed after a filtered one (-first +again):\n%s", diff)
	}
	if cmp.Equal(first, filtered) {
		t.Error("the filtered graph is the unfiltered one")
	}
}
