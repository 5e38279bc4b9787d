package cluster

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"casebook/internal/i18n"
	"casebook/internal/snapshot"
)

// perm is shorthand for the RBAC rule a read needs.
func perm(verb, group, resource, ns string) snapshot.Permission {
	return snapshot.Permission{Verb: verb, Group: group, Resource: resource, Namespace: ns}
}

// read runs one request with its own timeout. A failure is recorded in the
// snapshot and reported as false; the caller carries on without it.
func (c *collection) read(what string, p snapshot.Permission, fn func(ctx context.Context) error) bool {
	ctx, cancel := context.WithTimeout(c.ctx, c.r.opts.ReadTimeout)
	defer cancel()
	err := fn(ctx)
	if err == nil {
		return true
	}
	c.errs = append(c.errs, readError(what, p, err))
	return false
}

// readError classifies a client error into the kinds the wizard explains.
func readError(what string, p snapshot.Permission, err error) snapshot.ReadError {
	e := snapshot.ReadError{What: what, Permission: p, Kind: snapshot.ReadOther, Message: shortMessage(err)}
	var netErr net.Error
	switch {
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		e.Kind = snapshot.ReadForbidden
	case apierrors.IsNotFound(err):
		e.Kind = snapshot.ReadNotFound
	case errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) ||
		(errors.As(err, &netErr) && netErr.Timeout()):
		e.Kind = snapshot.ReadTimeout
	case apierrors.IsServiceUnavailable(err) || errors.As(err, new(*net.OpError)) || errors.Is(err, syscall.ECONNREFUSED):
		e.Kind = snapshot.ReadUnavailable
	}
	return e
}

// shortMessage keeps the API server's message, which names the object and
// the user but never a credential, and drops client-go's wrapping.
func shortMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

// targetError is the error for a failed read that the whole triage needs
// (the pod itself, a namespace's pod list): it wraps the sentinel of its
// kind and says what was read, why it failed and what to grant.
func targetError(e snapshot.ReadError) error {
	switch e.Kind {
	case snapshot.ReadNotFound:
		return i18n.Errorf(snapshot.ErrNotFound, "live.not_found", "what", strings.TrimPrefix(strings.TrimPrefix(e.What, "get "), "list "))
	case snapshot.ReadForbidden:
		return i18n.Errorf(snapshot.ErrForbidden, "live.forbidden", "what", e.What, "permission", e.Permission.String(), "message", e.Message)
	}
	return i18n.Errorf(snapshot.ErrUnavailable, "live.unavailable", "what", e.What, "kind", e.Kind, "message", e.Message)
}
