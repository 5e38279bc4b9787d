package i18n

import "context"

type ctxKey struct{}

// WithPrinter returns ctx carrying the request's printer, so templates and
// helpers deep in a page render in the request's language without every
// view model carrying it.
func WithPrinter(ctx context.Context, p *Printer) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// From returns the printer of ctx, English when none was set (a test that
// renders a component directly, a background job).
func From(ctx context.Context) *Printer {
	if p, ok := ctx.Value(ctxKey{}).(*Printer); ok && p != nil {
		return p
	}
	return Messages().Printer(EN)
}
