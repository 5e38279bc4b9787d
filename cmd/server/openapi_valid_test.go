package main

import (
	"os"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi-validator/schema_validation"
)

// TestOpenAPIDocumentValid checks docs/openapi.yaml against the official
// OpenAPI 3.1 schema with an independent validator (pb33f's), as other
// tools (code generators, API gateways, documentation sites) read it; the
// other checks here only read the parts they need. The table holds the
// mistakes the document once had, to show the validator refuses them.
func TestOpenAPIDocumentValid(t *testing.T) {
	src, err := os.ReadFile("../../docs/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	good := string(src)
	tests := []struct {
		name  string
		doc   string
		valid bool
	}{
		{"shipped document", good, true},
		{"licence without a name", strings.Replace(good, "info:\n", "info:\n  license:\n    url: https://example.com/licence\n", 1), false},
		{"description split by a comma in a flow map", strings.Replace(good,
			`"400": { description: "Not a JSON-RPC message, or the Accept header is missing a type." }`,
			`"400": { description: Not a JSON-RPC message, or the Accept header is missing a type. }`, 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.valid && tt.doc == good {
				t.Fatal("the mutation did not change the document")
			}
			doc, err := libopenapi.NewDocument([]byte(tt.doc))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			ok, errs := schema_validation.ValidateOpenAPIDocument(doc)
			if ok != tt.valid {
				var msgs []string
				for _, e := range errs {
					msgs = append(msgs, e.Message+": "+e.Reason)
					for _, se := range e.SchemaValidationErrors {
						msgs = append(msgs, "  "+se.FieldPath+": "+se.Reason)
					}
				}
				t.Errorf("valid = %v, want %v\n%s", ok, tt.valid, strings.Join(msgs, "\n"))
			}
		})
	}
}
