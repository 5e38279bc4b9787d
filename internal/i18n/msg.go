package i18n

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// Msg is a catalogue message with its arguments, held by a value that is
// rendered later, in a language not known when it was made: a cluster
// probe's note, an evidence line's explanation, an error. Args are name,
// value pairs as Printer.T takes them; a value may itself be a Msg (a note
// wrapped in "could not read ..."), rendered in the same language.
type Msg struct {
	Key  string
	Args []any
}

// M makes a message: M("probe.pod_not_read"), M("select.unknown", "param",
// "cause", "value", `"gpu-drvier"`).
func M(key string, args ...any) Msg { return Msg{Key: key, Args: args} }

// IsZero reports whether m holds no message.
func (m Msg) IsZero() bool { return m.Key == "" }

// Arg returns the value of a named argument.
func (m Msg) Arg(name string) (any, bool) {
	for i := 0; i+1 < len(m.Args); i += 2 {
		if k, _ := m.Args[i].(string); k == name {
			return m.Args[i+1], true
		}
	}
	return nil, false
}

// English renders m with the English catalogue: the text a value keeps for
// logs, the CLI and the JSON fields that have always been English.
func (m Msg) English() string { return Messages().Printer(EN).Msg(m) }

// Msg renders a message in the printer's language.
func (p *Printer) Msg(m Msg) string {
	if m.IsZero() {
		return ""
	}
	return p.T(m.Key, m.Args...)
}

// MarshalJSON writes {"key": ..., "args": {name: value}}, so a client can
// render the message from its own catalogue; nested messages nest.
func (m Msg) MarshalJSON() ([]byte, error) {
	out := struct {
		Key  string         `json:"key"`
		Args map[string]any `json:"args,omitempty"`
	}{Key: m.Key}
	for i := 0; i+1 < len(m.Args); i += 2 {
		k, _ := m.Args[i].(string)
		if out.Args == nil {
			out.Args = map[string]any{}
		}
		out.Args[k] = m.Args[i+1]
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes (a saved report read back):
// arguments come back sorted by name, nested messages as Msg.
func (m *Msg) UnmarshalJSON(b []byte) error {
	var in struct {
		Key  string                     `json:"key"`
		Args map[string]json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*m = Msg{Key: in.Key}
	names := make([]string, 0, len(in.Args))
	for k := range in.Args {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		raw := in.Args[k]
		var nested Msg
		if len(raw) > 0 && raw[0] == '{' {
			if err := json.Unmarshal(raw, &nested); err != nil {
				return err
			}
			m.Args = append(m.Args, k, nested)
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		if f, ok := v.(float64); ok && f == float64(int(f)) {
			v = int(f)
		}
		m.Args = append(m.Args, k, v)
	}
	return nil
}

// Localized is implemented by errors (and other values) whose text is a
// catalogue message, so each door renders it in its reader's language: a
// Korean page shows the Korean, the JSON API adds message_ko beside the
// English error.
type Localized interface {
	Message() Msg
}

// MessageOf finds the catalogue message of an error or anything it wraps.
func MessageOf(err error) (Msg, bool) {
	var l Localized
	if errors.As(err, &l) {
		if m := l.Message(); !m.IsZero() {
			return m, true
		}
	}
	return Msg{}, false
}

// Error is an error whose text is a catalogue message. Kind, when set, is
// the sentinel errors.Is matches (a package's ErrInvalid); callers never
// match the text.
type Error struct {
	Kind error
	Msg  Msg
}

// Errorf makes an *Error of kind kind (may be nil) from a message key and
// its arguments.
func Errorf(kind error, key string, args ...any) *Error {
	return &Error{Kind: kind, Msg: M(key, args...)}
}

// Error is the English text.
func (e *Error) Error() string { return e.Msg.English() }

// Unwrap returns the kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// Message is the catalogue message, for other languages.
func (e *Error) Message() Msg { return e.Msg }

// Quote writes a value the way error messages quote what the user typed,
// in both languages (Go's %q).
func Quote(s string) string { return fmt.Sprintf("%q", s) }
