# verbscope. `make run` and `make test` do all the set-up (see README.md).
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(PATH)
# The lab's cache: the guest kernel, the initramfs, git-ignored.
export VERBSCOPE_CACHE ?= $(CURDIR)/.cache/lab
# The lab's guest kernel: 6.1 (Debian 12's, the default) or 6.12 (Debian
# 13's). `make test LAB_KERNEL=6.12` boots it in every lab and vm test:
# the lab reads $LAB_KERNEL (lab/kernels.go).
export LAB_KERNEL

GO      ?= go
BIN     := bin/verbscope
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all deps build run test vet unit stub bpf-check vm-test lab-test lab-vm-test bench stress fuzz clean realhw

all: build

deps:
	@sh lab/deps.sh

build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) .

# The main job, the dashboard: on a host with RDMA devices it runs here;
# without (the usual lab machine), inside the lab VM on a real Soft-RoCE
# rxe0, with a small labelled demo workload beside it (DEMO=0 leaves it
# out). The lab's device and GID index (init.sh exports them in the
# guest) reach the dashboard as flags, expanded by the guest's sh.
DEMO ?= 1
run: build
	@if ls /sys/class/infiniband/* >/dev/null 2>&1; then \
	  echo "run: this host has RDMA devices ($$(ls /sys/class/infiniband | tr '\n' ' ')): starting the dashboard here"; \
	  exec $(BIN) dash; \
	fi; \
	echo "run: no RDMA on this host: starting the dashboard in the lab VM (Debian's kernel with rdma_rxe under qemu)"; \
	exec $(BIN) lab -i -- 'verbscope dash --dev "$$LAB_DEV" --gid-index "$$LAB_GID_INDEX"' $(if $(filter 1,$(DEMO)),--demo)

test: deps
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory vet unit stub bpf-check lab-vm-test && \
	echo "make test: all passed in $$(( $$(date +%s) - start )) s"

# staticcheck comes from the module proxy at a pinned version.
STATICCHECK := $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

# Programs under testdata (./... leaves them out) that vm tests build in
# the VMs: vetted here, so a renamed API fails in the first minute, not
# twenty minutes in.
TESTDATA_PROGRAMS = ./cli/testdata/fleetpair

# gofmt first: an unformatted file fails here, in the first seconds.
# One pass each over every file: no file is built only without the lab
# or vm tags, so -tags lab,vm is a superset of the plain build (a cold
# cache spent 5 minutes on the three passes this replaces).
vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "vet: gofmt would change these (run gofmt -w on them):" $$unformatted >&2; exit 1; fi
	$(GO) vet -tags lab,vm ./...
	$(GO) vet $(TESTDATA_PROGRAMS)
	$(STATICCHECK) -tags lab,vm ./...

# The unit tests build as the lab's do (-race, cgocheck2), so the lab
# runner finds every package compiled: a different GOEXPERIMENT is a
# whole second build of the standard library and every dependency (5
# minutes of a cold make test on 2 cores).
unit:
	GOEXPERIMENT=cgocheck2 $(GO) test -race ./...

# The !cgo stub must keep building with the same API, and its tests
# (every call refuses with ErrUnsupported) pass, with the shell's and the
# commands' that reach it (what they say on a build without libibverbs).
# The other packages are pure Go, their tests run in `unit`; running them
# again without cgo took 21 of this step's 37 s in a fresh clone.
stub:
	CGO_ENABLED=0 $(GO) build ./...
	CGO_ENABLED=0 $(GO) vet ./...
	CGO_ENABLED=0 $(GO) test ./verbs/... ./shell/... ./cli/...

# trace's BPF object and loader are committed (building needs no clang):
# regenerate them in a copy of the package with Debian's clang and fail if
# they differ from the committed ones (bpf2go's output does not depend on
# the folder it runs in).
bpf-check:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && \
	mkdir -p $$tmp/trace && cp -r trace/bpf trace/gen.go $$tmp/trace/ && \
	printf 'module bpfcheck\ngo 1.26\n' > $$tmp/go.mod && \
	(cd $$tmp/trace && $(GO) generate .) && \
	for f in tracer_bpfel.o tracer_bpfel.go; do \
	  cmp -s $$tmp/trace/$$f trace/$$f || { echo "bpf-check: trace/$$f differs from what go generate ./trace makes now: run it and commit the result" >&2; exit 1; }; \
	done && echo "bpf-check: trace's generated BPF object and loader match trace/bpf"

# Host-side tests that boot VMs: exit codes, the two-VM wire, no qemu
# left, a kernel's trouble report stopping a run, two shells on two
# hosts, the exporters of two hosts scraped by Prometheus. The limit: cli's
# took 185 s on an idle 2-core machine; 3x on a machine twice as slow,
# rounded up. Only the vm-tagged files' tests run (-run lists them): the
# packages' other tests ran in `unit`, race-built, and again here they
# only added their time to cli's.
VM_FILES = $(shell grep -l '^//go:build vm' lab/*_test.go cli/*_test.go)
VM_RUN = ^($(shell sed -n 's/^func \(Test[A-Z][A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' $(VM_FILES) | paste -sd'|'))$$
vm-test:
	$(GO) test -tags vm -count=1 -timeout 20m -run '$(VM_RUN)' ./lab/ ./cli/

# Every package's lab tests, inside one VM boot, on the real rxe0.
# PKGS=./cli narrows to packages, RUN='^TestX$' to tests (go test's -run);
# a failed run prints the command that runs each failed test alone.
lab-test:
	$(GO) run ./lab/labtest -race -cgocheck2 $(if $(value RUN),-run '$(value RUN)') $(PKGS)

# make test's lab suite, with the vm-tagged tests started as soon as the
# first of its two VMs ends (labtest -then): beside the other VM's last
# tests rather than after them.
lab-vm-test:
	$(GO) run ./lab/labtest -race -cgocheck2 -then 'make --no-print-directory vm-test' $(PKGS)

# The sysfs views against the trees other projects recorded from real
# hardware (../shared/realhw/trees, or REALHW_TREES=DIR): not part of make
# test, since the trees are theirs and not in this repository.
realhw:
	REALHW_TREES=$(abspath $(or $(REALHW_TREES),../shared/realhw/trees)) $(GO) test -tags realhw -count=1 -run '^TestRealHW$$' -v ./cli/ | grep -v '^=== RUN'

bench:
	$(GO) run ./lab/labtest -bench '$(or $(value RUN),.)' $(PKGS)

# The flake hunt, not part of make test (lab/stress): the unit tests
# STRESS_COUNT times at each of -cpu 1,2,4 under -race beside a CPU
# hog, then the lab suite 3 times in one boot, and a report of every
# test that failed at least once. PKGS narrows both; LAB=0 leaves the
# lab suite out. Built first and run directly, so that a stop reaches
# it and it can end its hog and VMs.
STRESS_COUNT ?= 20
stress: deps
	$(GO) build -o .cache/stress ./lab/stress
	.cache/stress -count $(STRESS_COUNT) $(if $(filter 0,$(LAB)),-lab=false) $(PKGS)

FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz: $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin .cache/labtest-*
