// Package library embeds the default content library, so the server runs with
// no flags. The Markdown and YAML here are the source of truth; see README.md.
package library

import "embed"

// FS holds taxonomy.yaml, incidents/, playbooks/, triage/, checks/ and drills/.
//
//go:embed *.yaml *.md incidents playbooks triage checks drills
var FS embed.FS
