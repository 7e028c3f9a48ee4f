#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The job of make test's and make stress's guests: run the suites the host
# names (AWS_ARGS, the manifest's list for the run), in that order.
# shellcheck disable=SC2086 # the suite names are words
exec bash "$AWS_TOOLS/guest/run-suites.sh" ${AWS_ARGS:-harness}
