package snapshot

import (
	"casebook/internal/i18n"
	"errors"
	"strings"
)

// Why a cluster read could not produce a snapshot at all. The reader
// (internal/cluster) wraps one of these in every such error, and each door
// maps them once: the web to a status (403, 403, 404, 503), MCP to a tool
// error, the CLI to a non-zero exit, all with the same message. A read that
// fails while a snapshot is being filled is not an error but a ReadError
// in the snapshot, which the wizard turns into a question.
var (
	// ErrNamespaceNotAllowed: the namespace is outside the server's
	// allow-list (--namespaces); the cluster was not read.
	ErrNamespaceNotAllowed = errors.New("namespace not open to live triage")
	// ErrForbidden: the cluster refused the read that everything else
	// depends on (RBAC).
	ErrForbidden = errors.New("the cluster refused the read")
	// ErrNotFound: the pod or workload does not exist.
	ErrNotFound = errors.New("not found in the cluster")
	// ErrUnavailable: the cluster could not be reached or timed out.
	ErrUnavailable = errors.New("the cluster could not be read")
)

// NamespaceNotAllowed is the refusal of a namespace outside the allow-list,
// in the words every door shows.
func NamespaceNotAllowed(ns string, allowed []string) error {
	return i18n.Errorf(ErrNamespaceNotAllowed, "live.namespace_not_allowed", "namespace", i18n.Quote(ns), "allowed", strings.Join(allowed, ", "))
}
