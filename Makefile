# Geopub: the two commands the README promises, and the checks CI runs.
GO ?= go
STATICCHECK_VERSION ?= v0.8.2

.PHONY: run test test-fast deps check generate fmt vet staticcheck gen-check tracked-files

## run: the service on the embedded default (SQLite in ./data) at 127.0.0.1:8080
run:
	@bash scripts/ensure-deps.sh run
	$(GO) run ./cmd/geopub serve

## test: the whole suite; the PostgreSQL half runs when GEOPUB_TEST_DATABASE_URL is set
test:
	@bash scripts/ensure-deps.sh test
	bash scripts/test.sh

## test-fast: the fast tier, for a developer's answer in minutes (go test -short, test cache on)
test-fast:
	@bash scripts/ensure-deps.sh test
	bash scripts/test.sh --fast

## deps: system packages the tests need (Debian, as root)
deps:
	bash scripts/install-test-deps.sh

## check: formatting, vet, staticcheck and generated-code drift
check: tracked-files fmt vet staticcheck gen-check

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	@command -v staticcheck >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@# ent/ is generated (its schemas are not): check everything else.
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" staticcheck $$($(GO) list ./... | grep -v '/ent\(/\|$$\)') ./ent/schema/...

## generate: regenerate Ent, the GraphQL schema and gqlgen's code
generate:
	$(GO) generate ./...

## gen-check: fail when generated code is stale
gen-check: generate
	@if [ -n "$$(git status --porcelain -- ent schema graph)" ]; then \
		echo "generated code is stale; run 'make generate' and commit:"; git status --porcelain -- ent schema graph; exit 1; fi

## tracked-files: fail when git tracks a binary or a file over 5 MB
tracked-files:
	bash scripts/check-tracked-files.sh
