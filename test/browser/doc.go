// Package browser holds the end-to-end tests that drive the portal in a
// headless Chromium through chromedp: the library flow with htmx, the graph,
// the pages without JavaScript, accessibility (axe-core) and the
// Content-Security-Policy. The package has no code of its own; run it with
// go test. Without a browser the tests skip, unless CI=true.
package browser
