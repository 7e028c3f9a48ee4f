# SPDX-License-Identifier: GPL-2.0
#
# Count the results of a KTAP log against its plans (and, for guest runs,
# the manifest): prints one "problem: ..." line per discrepancy, then
# "passed failed skipped".  Every problem counts as one failure.
#
#   awk -f ktap-count.awk [-v mode=flat|suites] [-v docs=N]
#       [-v expect="SUITE..." -v manifest=FILE] [-v skips=FILE -v variant=V] LOG
#
# Every KTAP document (a "KTAP version 1" line at column 0 starts one) and
# every nested subtest must print its plan "1..N", N > 0, before its first
# result (KTAP puts it right after the version and "# Subtest:" lines), and
# emit exactly N results at its level.  docs=N: LOG must hold N documents.
#
# mode=flat (unit and host logs): a top-level result without nested results
# is a case; one with nested results counts as its nested cases, plus one
# failure if it failed although none of them did (a crashed suite).
# mode=suites (guest logs, written by harness/guest/run-suites.sh): every
# top-level result is a suite and its nested results are the cases; a suite
# with no case is a failure, never a pass.  With expect=, the run must have
# run exactly those suites in that order, each planning and emitting the
# number of cases the manifest gives it (lines "RUN SUITE CASES"); the cases
# of a missing or short suite count as failures.  The guest's job script
# must have reported exit status 0 ("# aws-guest: job exit status 0").
#
# skips=FILE (harness/boot/expected-skips): a skipped case is a failure unless
# FILE lists it, as "SUITE CASE VARIANTS REASON" (VARIANTS: a comma list of
# kernel variants or '*'; SUITE '-' for a flat log's cases), for VARIANT; an
# entry for VARIANT whose case ran in LOG without a skip is a failure too.

# Is the skip of CASE in SUITE one the skips file expects for this variant?
function skip_expected(suite, name) {
	return ((suite SUBSEP name SUBSEP variant) in skip_ok) ||
	       ((suite SUBSEP name SUBSEP "*") in skip_ok)
}

function skipped(suite, name) {
	s++
	if (skips != "" && !skip_expected(suite, name))
		problem("unexpected skip: " suite " " name " (not in " skips " for " variant ")")
}

function problem(msg) {
	print "problem: " msg
	f++
	nprob[cur_suite]++
}

# Close the current top-level document: check its plan against its results.
function close_doc() {
	if (!doc_open)
		return
	if (doc_plan < 0)
		problem("KTAP document " ndocs " has no plan line before its results")
	else if (doc_plan == 0)
		problem("KTAP document " ndocs " plans no case (1..0)")
	else if (doc_count != doc_plan)
		problem("KTAP document " ndocs " planned 1.." doc_plan " but has " doc_count " results")
	doc_open = 0
}

# A top-level result line: close the nested block it ends, if any.
function top(line, failed,   name) {
	doc_count++
	name = line
	sub(/^(not )?ok [0-9]+ /, "", name)
	sub(/ *#.*$/, "", name)
	if (mode == "suites" || nest_open) {
		cur_suite = name
		for (k = 1; k <= nest_nskip; k++)
			skipped(name, nest_skip[k])
		for (k = 1; k <= nest_nran; k++)
			ran_case[name, nest_ran[k]] = 1
		nseen++
		seen[nseen] = name
		emitted[name] = nest_count
		planned[name] = nest_plan
		if (nest_count == 0) {
			# (with a manifest, its check below counts the missing cases)
			if (expect == "" || !(name in want))
				problem("suite " name " emitted no case")
		} else {
			if (nest_plan < 0)
				problem("suite " name " printed no plan line before its cases")
			else if (nest_plan != nest_count && expect == "")
				problem("suite " name " planned 1.." nest_plan " but emitted " nest_count)
			# A failed suite none of whose cases failed (it crashed, timed
			# out or miscounted): one failure, unless a problem already
			# says what went wrong (checked at the end).
			if (failed && nest_failed == 0) {
				crashed[name] = line
				sub(/^[^#]*#? */, "", crashed[name])
			}
		}
		cur_suite = ""
	} else if (line ~ /# SKIP/) {
		skipped("-", name)
	} else {
		ran_case["-", name] = 1
		if (failed)
			f++
		else
			p++
	}
	nest_open = 0; nest_count = 0; nest_failed = 0; nest_plan = -1; nest_nskip = 0
	nest_nran = 0
}

BEGIN {
	if (mode == "")
		mode = "flat"
	nest_count = 0
	nest_plan = -1
	doc_plan = -1
	if (manifest != "") {
		while ((getline ml < manifest) > 0) {
			split(ml, mf)
			if (ml ~ /^[ \t]*(#|$)/)
				continue
			if (mf[3] !~ /^[0-9]+$/ || mf[4] != "") {
				problem("manifest line '" ml "' is not 'RUN SUITE CASES'")
				continue
			}
			if ((mf[2] in want) && want[mf[2]] != mf[3])
				problem("manifest gives suite " mf[2] " both " want[mf[2]] " and " mf[3] " cases")
			want[mf[2]] = mf[3]
		}
		close(manifest)
	}
	if (skips != "") {
		if (variant == "")
			variant = "default"
		while ((getline sl < skips) > 0) {
			if (sl ~ /^[ \t]*(#|$)/)
				continue
			split(sl, sf)
			if (sf[4] == "") {
				problem("skips line '" sl "' is not 'SUITE CASE VARIANTS REASON'")
				continue
			}
			nv = split(sf[3], vs, ",")
			for (k = 1; k <= nv; k++)
				skip_ok[sf[1], sf[2], vs[k]] = 1
		}
		close(skips)
	}
}

/^KTAP version / {
	close_doc()
	ndocs++
	doc_open = 1; doc_plan = -1; doc_count = 0
	next
}
/^1\.\.[0-9]+/ {
	if (doc_count > 0 || doc_plan >= 0)
		problem("KTAP document " ndocs ": plan line '" $0 "' is not before its results")
	doc_plan = substr($1, 4) + 0
	next
}
/^[ \t]+/ {
	nest_open = 1
}
/^[ \t]+1\.\.[0-9]+/ {
	if (nest_count > 0 || nest_plan >= 0)
		nest_late_plan++
	nest_plan = substr($1, 4) + 0
	next
}
/^[ \t]+(not )?ok [0-9]+/ {
	nest_count++
	if ($0 ~ /# SKIP/) {
		# the suite's name comes with its own result line, after these
		nest_skip[++nest_nskip] = $3
		sub(/ *#.*$/, "", nest_skip[nest_nskip])
		next
	}
	nest_ran[++nest_nran] = $3
	sub(/ *#.*$/, "", nest_ran[nest_nran])
	if ($0 ~ /^[ \t]+not ok/) { f++; nest_failed++ }
	else p++
	next
}
/^not ok [0-9]+/ { top($0, 1); next }
/^ok [0-9]+/ { top($0, 0); next }
/^# aws-guest: job exit status [0-9]+/ { job_status = $NF; next }

END {
	close_doc()
	# An expected skip of a case that ran is stale: the list must say
	# what is true of this kernel, or a skip that comes back is hidden.
	for (key in skip_ok) {
		split(key, kf, SUBSEP)
		if ((kf[3] == variant || kf[3] == "*") && ((kf[1], kf[2]) in ran_case))
			problem("stale expected skip: " kf[1] " " kf[2] " ran for " variant \
				" (remove it from " skips ")")
	}
	if (docs != "" && ndocs != docs)
		problem("expected " docs " KTAP documents, found " ndocs)
	if (nest_late_plan)
		problem(nest_late_plan " nested plan line(s) came after results")
	if (mode == "suites") {
		if (job_status == "")
			problem("the guest never reported its job's exit status (it died or was stopped)")
		else if (job_status != 0)
			problem("the guest's job script exited with status " job_status)
	}
	if (expect != "" || mode == "suites" && manifest != "") {
		nexp = split(expect, ex, " ")
		got = ""
		for (i = 1; i <= nseen; i++) got = got (i > 1 ? " " : "") seen[i]
		if (got != expect)
			problem("suites run: '" got "', manifest says: '" expect "'")
		for (i = 1; i <= nseen; i++) ran[seen[i]] = 1
		for (i = 1; i <= nexp; i++) {
			name = ex[i]
			cur_suite = name
			if (!(name in want)) {
				problem("suite " name " has no entry in the manifest")
				continue
			}
			if (!(name in ran)) {
				problem("suite " name " did not run: its " want[name] " cases count as failed")
				f += want[name]
				continue
			}
			if (planned[name] >= 0 && planned[name] != want[name])
				problem("suite " name " planned 1.." planned[name] ", the manifest says " want[name])
			if (emitted[name] < want[name]) {
				problem("suite " name " emitted " emitted[name] " of its " want[name] \
					" cases: the missing ones count as failed")
				f += want[name] - emitted[name]
			} else if (emitted[name] > want[name]) {
				problem("suite " name " emitted " emitted[name] " cases, the manifest says " want[name])
			}
		}
		for (i = 1; i <= nseen; i++) {
			name = seen[i]
			cur_suite = name
			found = 0
			for (j = 1; j <= nexp; j++) if (ex[j] == name) found = 1
			if (!found)
				problem("suite " name " ran but is not in this run's manifest list")
		}
	}
	for (name in crashed) {
		if (nprob[name])
			continue
		cur_suite = name
		problem("suite " name " failed without a failing case: " crashed[name])
	}
	printf "%d %d %d\n", p, f, s
}
