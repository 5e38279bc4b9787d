package cluster_test

import (
	"bufio"
	"io"
	"strings"
)

var errEOF = io.EOF

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }

// stripComments drops comment-only lines, so a document holding nothing
// but comments is skipped.
func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
