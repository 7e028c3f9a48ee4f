#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The `make test` guest plan: every guest suite, in dependency order.
# shellcheck disable=SC2086 # the suite names are words
exec bash "$AWS_TOOLS/guest/run-suites.sh" ${AWS_ARGS:-harness}
