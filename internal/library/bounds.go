package library

import (
	"bytes"
	"errors"
	"fmt"
)

// goldmark's and the YAML decoder's cost grows faster than the input on
// deep nesting (lists, block quotes, flow collections) and very long lines,
// and a reload is shared by every reader. So every Markdown and YAML source
// of a layer is measured before it is parsed: past a bound it is a problem
// at its line and is not parsed; the rest of the layer loads. The bounds
// are far above anything written by hand (the shipped library's largest
// Markdown file is about 26 KB, its longest line under 1,000 bytes, its
// deepest nesting under 10 levels).
const (
	MaxMarkdown = 1 << 20  // bytes of one Markdown file
	MaxLine     = 16 << 10 // bytes of one line
	MaxDepth    = 32       // nesting levels: list items, block quotes, YAML blocks and flows
)

// Why a source was not parsed.
var (
	ErrSourceTooLarge = errors.New("not parsed: the file is larger than a Markdown file may be")
	ErrLineTooLong    = errors.New("not parsed: a line is longer than a line may be")
	ErrTooDeep        = errors.New("not parsed: nested deeper than a file may nest")
)

// BoundError is a source past a bound, at its line.
type BoundError struct {
	Line int
	Err  error
}

func (e *BoundError) Error() string { return e.Err.Error() }
func (e *BoundError) Unwrap() error { return e.Err }

// CheckMarkdown measures a Markdown file (front matter included) against
// the bounds; nil when it may be parsed. Lines inside fenced code blocks
// count for length only: goldmark reads them as text.
func CheckMarkdown(src []byte) *BoundError {
	if len(src) > MaxMarkdown {
		return &BoundError{Line: 1, Err: fmt.Errorf("%w (%d KiB; at most %d KiB)", ErrSourceTooLarge, len(src)>>10, MaxMarkdown>>10)}
	}
	fence := []byte(nil)
	return eachLine(src, func(line []byte) error {
		t := bytes.TrimLeft(line, " \t")
		if f := fenceOf(t); f != nil {
			switch {
			case fence == nil:
				fence = f
			case bytes.HasPrefix(f, fence):
				fence = nil
			}
			return nil
		}
		if fence != nil {
			return nil
		}
		if d := markdownDepth(line); d > MaxDepth {
			return fmt.Errorf("%w (%d levels of lists or quotes; at most %d)", ErrTooDeep, d, MaxDepth)
		}
		return nil
	})
}

// CheckYAML measures a YAML file against the bounds; nil when it may be
// parsed. Depth is the block indentation (two columns a level) plus the
// open flow collections ([ and {) around the line.
func CheckYAML(src []byte) *BoundError {
	flow := 0
	return eachLine(src, func(line []byte) error {
		indent := 0
		for indent < len(line) && (line[indent] == ' ' || line[indent] == '-') {
			indent++
		}
		// A bracket opens a flow collection where a value starts (after
		// the indentation, "key:", "-" or, inside a flow, "," or another
		// bracket); elsewhere it is part of a plain scalar.
		inQuote, prev := byte(0), byte(' ')
		for i, c := range line {
			switch {
			case inQuote != 0:
				if c == inQuote {
					inQuote = 0
				}
			case c == '#' && (i == 0 || line[i-1] == ' '):
				return depthErr(indent/2 + flow)
			case (c == '"' || c == '\'') && (flow > 0 || bytes.IndexByte([]byte(":- "), prev) >= 0):
				inQuote = c
			case (c == '[' || c == '{') && (bytes.IndexByte([]byte(":- "), prev) >= 0 || flow > 0 && bytes.IndexByte([]byte(",[{"), prev) >= 0):
				flow++
				if err := depthErr(indent/2 + flow); err != nil {
					return err
				}
			case (c == ']' || c == '}') && flow > 0:
				flow--
			}
			if c != ' ' && c != '\t' {
				prev = c
			}
		}
		return depthErr(indent/2 + flow)
	})
}

func depthErr(d int) error {
	if d > MaxDepth {
		return fmt.Errorf("%w (%d levels of YAML nesting; at most %d)", ErrTooDeep, d, MaxDepth)
	}
	return nil
}

// eachLine calls check on every line of src, after its length is checked,
// and returns the first error at its line.
func eachLine(src []byte, check func(line []byte) error) *BoundError {
	for n := 1; len(src) > 0; n++ {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if len(line) > MaxLine {
			return &BoundError{Line: n, Err: fmt.Errorf("%w (%d KiB; at most %d KiB)", ErrLineTooLong, len(line)>>10, MaxLine>>10)}
		}
		if err := check(line); err != nil {
			return &BoundError{Line: n, Err: err}
		}
	}
	return nil
}

// fenceOf returns the fence a line opens or closes (``` or ~~~, three or
// more), or nil.
func fenceOf(t []byte) []byte {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 {
			return t[:n]
		}
	}
	return nil
}

// markdownDepth is how deep a line nests: its indentation, two columns a
// level (a tab is four), and each block-quote marker and list marker at
// its start.
func markdownDepth(line []byte) int {
	cols, i := 0, 0
	for ; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
		if line[i] == '\t' {
			cols += 4
		} else {
			cols++
		}
	}
	depth := cols / 2
	for i < len(line) {
		switch c := line[i]; {
		case c == '>':
			depth++
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			depth++
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && (line[j+1] == ' ' || line[j+1] == '\t') {
				depth++
				i = j + 2
				continue
			}
			return depth
		case c == ' ' || c == '\t':
			i++
		default:
			return depth
		}
	}
	return depth
}

// checkDocument measures a Markdown file with front matter (closed, see
// frontClosed): the whole file as Markdown, the front matter as YAML too.
func checkDocument(src []byte) *BoundError {
	if err := CheckMarkdown(src); err != nil {
		return err
	}
	start := bytes.IndexByte(src, '\n') + 1
	end := start
	for end < len(src) {
		next := bytes.IndexByte(src[end:], '\n')
		if next < 0 {
			next = len(src) - end
		}
		if string(bytes.TrimSuffix(src[end:end+next], []byte("\r"))) == "---" {
			break
		}
		end += next + 1
	}
	if err := CheckYAML(src[start:min(end, len(src))]); err != nil {
		err.Line++ // the front matter starts on line 2
		return err
	}
	return nil
}

// BoundProblem is the problem of a source at path past a bound.
func BoundProblem(path string, err *BoundError) Problem {
	return Problem{Path: path, Line: err.Line, Msg: err.Error()}
}
