# SPDX-License-Identifier: GPL-2.0
#
# anon-workingset: top-level entry points.  `make test` and `make run` do
# every missing setup step themselves (packages, kernel, rootfs, module,
# workloads) and rebuild only what changed.  Every output goes to build/
# (ignored): make run's to build/results/<timestamp>/, make sim's to
# build/sim/; results/ holds only the runs the docs cite.
#
#   make test        host unit tests + guest suites, ends "N passed, N failed"
#                    (SUITES="a b" MEM=256M: only those guest suites, in one guest)
#   make quick       the same for the module suite only (about a minute)
#   make run         policy experiment, a guest per cell (PLAN=short|full|seed|heldout|
#                    alike|sample, a file in harness/experiment/plans/; ONLY= cells and
#                    POLICIES= policies, globs a:b; REPS=; JOBS= guests at a time, the
#                    host's cores by default; RESUME=DIR, NAME=, RUN_LIMIT=: docs/experiment.md)
#   make merge       RESULTS='DIR...': shards of a plan run on several machines, one table
#   make sim         trace simulator: each policy vs Belady's OPT
#   make stress      longer reliability campaign in the guest, and the kernel
#                    tree's own mm selftests under every policy
#   make bench-cost  cost of the hooks under -icount: unpatched vs patched, policies vs stock
#   make shell       interactive guest on the serial console (MEM=, CPUS=)
#   make bpf         (KVER=6.12) libbpf, bpftool, the BPF policies and their loader
#   make bpf-policy  SRC=path/NAME.bpf.c: your BPF policy, on the 6.12 tools disk
#   make check-style checkpatch --strict, sparse, ShellCheck;  make check-hooks-off
#   VARIANT=debug    any of the above on the debug kernel (KASAN, lockdep, ...)
#   KVER=6.12        any of the above on Debian's 6.12 (patches/6.12/) instead of 6.1

VARIANT ?= default
# make bpf-policy is 6.12's (the only kernel with BPF policies)
ifneq ($(filter bpf-policy,$(MAKECMDGOALS)),)
KVER ?= 6.12
ifneq ($(KVER),6.12)
$(error make bpf-policy builds for 6.12, not KVER=$(KVER))
endif
ifeq ($(SRC),)
$(error make bpf-policy needs SRC=path/to/NAME.bpf.c, the policy to build)
endif
endif
KVER ?= 6.1
ifeq ($(filter 6.1 6.12,$(KVER)),)
$(error KVER=$(KVER): the kernels are 6.1 (the default) and 6.12)
endif
export KVER
PLAN ?= short
MEM ?= 512M
CPUS ?= 2
B := build
DEPS := linux-source-$(KVER) linux-config-$(KVER) qemu-system-x86 debootstrap kmod bc bison flex \
	libelf-dev libssl-dev ccache e2fsprogs cpio xz-utils patch sparse shellcheck \
	gnuplot python3-matplotlib python3-pandas libnuma-dev libcap-dev sqlite3 \
	redis-server redis-tools parallel
# 6.12's guest kernel carries BTF (pahole from dwarves) and runs BPF
# policies (clang, and libbpf's zlib).
ifeq ($(KVER),6.12)
DEPS += dwarves clang zlib1g-dev
endif
UNIT_BINDIR := $(B)/userspace-tests
export CCACHE_DIR ?= $(HOME)/.cache/ccache

.PHONY: all deps kernel rootfs module userspace tools bpf bpf-policy selftests unit test quick run merge sim \
	stress bench-cost shell clean distclean check-style check-hooks-off

all: kernel rootfs module userspace tools

# Idempotent: only calls apt-get when a package is missing.
deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo ">> deps: apt-get install$$(echo $$missing | sed 's/^/ /')"; \
		mkdir -p $(B)/logs; \
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing || \
		  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; }; \
		} >$(B)/logs/apt.log 2>&1 || { tail -n 20 $(B)/logs/apt.log; \
		  echo "error: apt-get install failed, see $(B)/logs/apt.log"; exit 1; }; \
	fi

kernel: deps
	@bash harness/images/build-kernel.sh $(VARIANT)

rootfs: deps
	@bash harness/images/build-rootfs.sh

module: kernel
	@bash harness/images/build-modules.sh $(VARIANT)

userspace:
	@$(MAKE) -s --no-print-directory -C userspace/workloads O=$(abspath $(B))/userspace
	@$(MAKE) -s --no-print-directory -C userspace/sim O=$(abspath $(B))/userspace
	@$(MAKE) -s --no-print-directory -C userspace/probes O=$(abspath $(B))/userspace

tools: module userspace
	@bash harness/images/make-tools-disk.sh $(VARIANT)

# 6.12's BPF policies: libbpf and bpftool from the tree's tools/, the
# policies in userspace/bpf/ and their loader (the tools disk carries them).
bpf: module
	@bash harness/images/build-bpf.sh $(VARIANT)
ifeq ($(KVER),6.12)
tools: bpf
endif

# One BPF policy of yours, a file anywhere: built like the project's, with
# its libbpf skeleton, and put on the tools disk (docs/bpf.md).
bpf-policy: deps tools
	@bash harness/images/build-bpf-policy.sh $(VARIANT) '$(SRC)'

# The kernel tree's mm selftests, static (make stress ships them on the tools
# disk; make test does not build them).
selftests: kernel
	@bash harness/images/build-selftests.sh

unit:
	@$(MAKE) -s --no-print-directory -C userspace/tests O=$(abspath $(UNIT_BINDIR))

# SUITES="a b": only those guest suites, in one guest of MEM (GUEST_ENV=
# "X=1,Y=2" passes settings to them); the host checks still run.
SUITES ?=
GUEST_ENV ?=
test: deps
	@AWS_SUITES="$(SUITES)" AWS_MEM="$(MEM)" AWS_ENV="$(GUEST_ENV)" bash harness/test/test.sh $(VARIANT)

# The edit-build-boot loop: a module change reaches a booted result in ~1 min.
quick: deps
	@AWS_SUITES="module" bash harness/test/test.sh $(VARIANT)

# make run's settings go to harness/experiment/run.py as they are given: PLAN
# only when set (a RESUME'd folder has its own), NAME only on the command
# line (an environment's NAME is often the host's).
run: deps kernel rootfs tools
	@python3 harness/experiment/run.py run --variant $(VARIANT) \
		$(if $(filter file,$(origin PLAN)),,--plan '$(PLAN)') \
		$(if $(ONLY),--only '$(ONLY)') $(if $(POLICIES),--policies '$(POLICIES)') \
		$(if $(REPS),--reps '$(REPS)') $(if $(JOBS),--jobs '$(JOBS)') \
		$(if $(RESUME),--resume '$(RESUME)') $(if $(RUN_LIMIT),--run-limit '$(RUN_LIMIT)') \
		$(if $(filter command line,$(origin NAME)),--name '$(NAME)')

merge: deps userspace
	@python3 harness/experiment/run.py merge $(RESULTS)

sim: userspace
	@bash harness/experiment/sim.sh

# make stress packs the selftests: build them before the tools disk.
ifneq ($(filter stress,$(MAKECMDGOALS)),)
tools: selftests
endif
stress: deps kernel rootfs selftests tools
	@bash harness/test/stress.sh $(VARIANT)

# A benchmark, not a test: never part of `make test`.  Builds the unpatched
# kernel too (build/kernel-unpatched); figures in build/bench-cost/latest/.
# The default kernel only: its costs are the ones that matter.
bench-cost: override VARIANT = default
bench-cost: deps kernel rootfs tools
	@bash harness/bench/bench-cost.sh

shell: deps kernel rootfs tools
	@python3 harness/boot/runner.py shell --variant $(VARIANT) --mem $(MEM) --cpus $(CPUS)

# Kernel style on the C we own (module, policy core) and on the patch series;
# ShellCheck on every shell script.
check-style: module
	@bash harness/test/check-style.sh $(VARIANT)

# The patched tree must also build with CONFIG_ANON_WS_HOOKS=n.
check-hooks-off: kernel
	@bash harness/test/check-hooks-off.sh

clean:
	rm -rf $(B)/module-* $(B)/userspace $(B)/userspace-tests $(B)/tools-* $(B)/runs

distclean:
	rm -rf $(B)
