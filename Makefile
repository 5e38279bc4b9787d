# Casebook. `make run` serves the embedded library; `make test` runs every test.
GO ?= go
PKGS := ./...

.PHONY: screenshots run test test-short generate check-generated lint vet bench build docker fuzz loadtest clean

run:
	$(GO) run ./cmd/server

# The whole suite: formatting, generated code, vet, content lint, then all
# tests with the race detector. Browser tests need Debian's chromium and the
# live-cluster tests need the API-server harness (scripts/kubeharness.sh);
# outside CI they skip with the reason, with CI=true they fail instead.
test: check-generated vet lint
	scripts/test.sh

test-short:
	$(GO) test -short $(PKGS)

# The first screen of every page type at 390 and 1366 px, in English, under
# docs/screenshots/ (TestPageTypes with CASEBOOK_DOC_SCREENSHOTS).
screenshots:
	mkdir -p docs/screenshots
	CI=true CASEBOOK_DOC_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test ./test/browser/ -run 'TestPageTypes/en/' -count=1 -timeout 30m

generate:
	$(GO) tool templ generate

check-generated:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) tool templ generate
	@git diff --exit-code -- '*_templ.go' || (echo "generated templ code is stale: run make generate and commit" && exit 1)

vet:
	$(GO) vet $(PKGS)

lint:
	$(GO) run ./cmd/server lint library

bench:
	scripts/bench.sh

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o bin/casebook ./cmd/server

docker:
	docker build -t casebook:dev .

fuzz:
	scripts/fuzz.sh

# 64 clients for 30 s on the library page, the search page and /api/search,
# on 127.0.0.1 only; figures go to docs/performance.md.
loadtest: build
	$(GO) run ./internal/bench/cmd/loadtest

clean:
	rm -rf bin
