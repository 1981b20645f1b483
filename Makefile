# polyflake's one task runner. `make` or `make help` lists the targets.
# The README's two commands are `make demo` (the main job) and `make test`
# (every test suite); `.ci/run` calls `make test` on a clean clone.

CARGO ?= cargo
PYTHON ?= python3

.DEFAULT_GOAL := help
.PHONY: help check demo test-demo deps fuzz test-fuzz e2e test-e2e test-grpc bench-pg dist dist-all dist-host test-dist test-dist-host test test-postgres test-rust test-etcd test-python test-node test-kotlin vectors vectors-check fmt lint bench bench-python bench-node bench-kotlin bench-report

help: ## List the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  make %-14s %s\n", $$1, $$2}'

check: ## The fast inner loop (Rust alone): rustfmt, clippy, the core's layers, the map's paths (docs/design.md), the core's tests, the golden vectors
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings
	bash scripts/check-lean.sh
	$(PYTHON) scripts/check_design_paths.py
	$(CARGO) test -q -p polyflake
	$(PYTHON) tests/vectors/make_vectors.py --check

demo: ## The main job: build the CLI and the bindings (Rust alone, no etcd) and run the demonstration
	bash scripts/demo.sh

test-demo: ## make demo as a new machine runs it: the programs make deps installs shadowed by stand-ins that fail (protoc first), in a target directory of its own; part of make test
	bash scripts/test-demo.sh

deps: ## Debian packages the etcd feature, the tests and the packages need (protoc, the protobuf types, etcd, chromium and chromedriver, postgresql, faketime, llvm, qemu-user-static, podman, runc, postgresql-server-dev-15, libclang-dev), if missing
	bash scripts/debian-deps.sh

SUITES := test-demo lint vectors-check test-rust test-grpc test-loom test-model test-etcd test-python test-node test-kotlin test-postgres test-private-ip test-e2e test-fuzz test-dist-host

test: ## Every test suite, with the lints (dist for linux x86_64 alone: make test-dist for every platform); release builds run ahead in idle time
	MAKE="$(MAKE)" bash scripts/test.sh $(SUITES)
	@echo "make test: every suite passed"

test-rust: deps ## Rust: unit, golden-vector, property and uniqueness tests; the CLI with and without etcd; the service and its page in chromium
	$(CARGO) test --all-features
	$(CARGO) test -p polyflake-cli --test without_etcd
	bash scripts/test-readme-cli.sh

test-grpc: deps ## polyflake serve's gRPC face from Python's grpcio (stubs from cli/proto, health, reflection)
	bash scripts/test-grpc.sh

test-loom: ## The generator's compare-and-swap under loom: every interleaving of 2 and 3 threads (its own target directory)
	RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom $(CARGO) test --release -p polyflake --test loom -- --nocapture

test-model: ## The lease and mark protocol checked exhaustively by stateright (model/), with three seeded mistakes it must find
	$(CARGO) test --release -p polyflake-model -- --nocapture --test-threads=1

test-etcd: deps ## etcd leases against a real etcd
	bash scripts/test-etcd.sh

test-python: ## Python: build the wheel, install it in a fresh venv, ruff + mypy + pytest
	bash scripts/test-python.sh

test-node: ## Node: build the addon, check generated typings, tsc, node --test
	bash scripts/test-node.sh

test-kotlin: ## Kotlin/JVM: cdylib, uniffi bindings, mvn verify against the jar
	bash scripts/test-kotlin.sh

test-postgres: deps ## PostgreSQL: the extension (pgrx) installed into Debian's PostgreSQL 15, its SQL suite against a cluster of its own
	bash scripts/test-postgres.sh

test-private-ip: ## POLYFLAKE_NODE_ID=private-ip in a network namespace (CLI, Python, Node; needs root and the artifacts of the targets before it)
	bash scripts/test-private-ip.sh

dist: deps ## The packages users install without Rust, into dist/, for linux x86_64 and aarch64 (glibc >= 2.17): wheels and sdist, npm packages, one jar, CLI tarballs (also static musl), the service's OCI image
	bash scripts/dist.sh

dist-all: deps ## make dist, and the musl wheels and addons and every macOS package (built with zig, inspected, not run)
	bash scripts/dist.sh --all

test-dist: dist ## Install each dist/ artifact as a user would (no Rust on PATH) and run the golden vectors through it: aarch64 under qemu-user, the image under podman
	bash scripts/test-dist.sh

dist-host: deps ## make dist for linux x86_64 (glibc >= 2.17) alone, without the image: the short version in make test
	bash scripts/dist.sh --host

test-dist-host: dist-host ## make test-dist for the linux x86_64 packages alone (wheel, sdist, npm, jar, CLI), part of make test
	bash scripts/test-dist.sh --host

e2e: deps ## The whole architecture under faults: a 3-member etcd, PostgreSQL, 3 replicas behind proxies that cut them off, Python and Node clients, an in-process writer (production TTL, every partition)
	bash scripts/e2e.sh --full

test-e2e: deps ## The short end-to-end run (TTL 5 s, the blackholed partition and the leader killed among the faults, every check), part of make test
	bash scripts/e2e.sh

bench-pg: deps ## PostgreSQL: the extension's next_id() key beside client Snowflake keys, bigserial, Instagram PL/pgSQL, UUIDv4 and UUIDv7 (rows/s, index, WAL) and each key function alone, into docs/benchmarks.md
	bash scripts/bench-pg.sh

vectors: ## Regenerate tests/vectors/*.json from the independent model
	$(PYTHON) tests/vectors/make_vectors.py

vectors-check: ## Fail if the committed golden vectors are stale
	$(PYTHON) tests/vectors/make_vectors.py --check

fmt: ## Format the Rust code
	$(CARGO) fmt --all

lint: deps ## rustfmt, clippy (warnings as errors), the lean default build's promises, the Kubernetes example against its schemas
	bash scripts/check-lean.sh
	bash scripts/check-deploy.sh
	$(PYTHON) scripts/check_design_paths.py
	$(PYTHON) scripts/readme_examples.py check
	$(PYTHON) scripts/release_matrix.py --check
	$(CARGO) fmt --all -- --check
	PGRX_PG_CONFIG_PATH=/usr/lib/postgresql/15/bin/pg_config $(CARGO) clippy --workspace --all-targets --all-features -- -D warnings

fuzz: ## cargo-fuzz targets 600 s each, then 100,000 random bad calls each in Python and Node
	bash scripts/fuzz.sh

test-fuzz: ## A short fuzz run (12 s per target, a few thousand bad calls), part of make test
	FUZZ_SECONDS=12 POLYFLAKE_FUZZ_CASES=5000 bash scripts/fuzz.sh

bench: ## Benchmarks beside the peer libraries, then docs/benchmarks.md
	$(CARGO) bench --bench generate -p polyflake
	$(PYTHON) scripts/bench_report.py
	$(CARGO) bench --bench turns -p polyflake > target/bench-turns.md
	$(PYTHON) scripts/bench_report.py --section rust-turns --from target/bench-turns.md

bench-python: ## Python benchmark beside the peers, into docs/benchmarks.md
	bash scripts/bench-python.sh

bench-node: ## Node benchmark beside the peers, into docs/benchmarks.md
	bash scripts/bench-node.sh

bench-kotlin: ## Kotlin benchmark beside hutool and tsid-creator, into docs/benchmarks.md
	bash scripts/bench-kotlin.sh

bench-serve: ## polyflake serve over HTTP (wrk) and gRPC beside a trivial handler of each, and next_id through a service-backed generator beside a local one, into docs/benchmarks.md
	bash scripts/bench-serve.sh

bench-report: ## Rewrite docs/benchmarks.md from the last benchmark run
	$(PYTHON) scripts/bench_report.py
