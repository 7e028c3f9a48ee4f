// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing of the "policy" and "ratio" module parameters as written to
 * sysfs: the buffer comes with an explicit length and is not trusted.
 */
#include <string.h>

#include <linux/types.h>
#include "anon_ws_policy.h"
#include "tests.h"

struct parse_input {
	const char *buf;
	size_t len;	/* 0 with a non-empty buf means strlen(buf) */
	const char *what;
};

static size_t input_len(const struct parse_input *in)
{
	return in->len ? in->len : strlen(in->buf);
}

/* A 4096-byte buffer, the size of a sysfs write, filled with @c. */
static const char *page_of(char c)
{
	static char buf[2][4096];
	char *b = buf[c == '1'];

	memset(b, c, sizeof(buf[0]));
	return b;
}

static void test_policy_names(struct aws_tc *tc)
{
	static const char * const want[] = {
		"stock", "baseline", "protect", "detect", "upstream",
	};
	unsigned int p;

	CHECK(tc, AWS_NR_POLICIES == 5, "%d policies", AWS_NR_POLICIES);
	for (p = 0; p < AWS_NR_POLICIES; p++) {
		const char *name = aws_policy_name(p);

		CHECK(tc, !strcmp(name, want[p]), "policy %u is \"%s\"", p,
		      name);
		CHECK(tc, strlen(name) <= AWS_POLICY_NAME_MAX, "%s too long",
		      name);
	}
	CHECK(tc, !strcmp(aws_policy_name(AWS_NR_POLICIES), "invalid"),
	      "name(NR)");
	CHECK(tc, !strcmp(aws_policy_name((enum aws_policy)-1), "invalid"),
	      "name(-1)");
	CHECK(tc, !strcmp(aws_policy_name((enum aws_policy)1000), "invalid"),
	      "name(1000)");
}

static void test_policy_parse_good(struct aws_tc *tc)
{
	char buf[16];
	unsigned int p;

	for (p = 0; p < AWS_NR_POLICIES; p++) {
		const char *name = aws_policy_name(p);
		size_t n = strlen(name);
		enum aws_policy out = AWS_NR_POLICIES;
		int ret;

		ret = aws_policy_parse(name, n, &out);
		CHECK(tc, ret == 0 && out == p, "\"%s\": %d/%d", name, ret,
		      out);

		/* as echo(1) writes it; not NUL-terminated within len */
		memcpy(buf, name, n);
		buf[n] = '\n';
		buf[n + 1] = 'X';
		out = AWS_NR_POLICIES;
		ret = aws_policy_parse(buf, n + 1, &out);
		CHECK(tc, ret == 0 && out == p, "\"%s\\n\": %d/%d", name, ret,
		      out);

		/* a length shorter than the buffer limits what is parsed */
		memcpy(buf, name, n);
		buf[n] = 'x';
		out = AWS_NR_POLICIES;
		ret = aws_policy_parse(buf, n, &out);
		CHECK(tc, ret == 0 && out == p, "prefix of \"%sx\": %d", name,
		      ret);
	}
}

static void test_policy_parse_bad(struct aws_tc *tc)
{
	const struct parse_input bad[] = {
		{ "", 0, "empty" },
		{ "\n", 0, "newline only" },
		{ "\n\n", 0, "two newlines" },
		{ "lru", 0, "unknown word" },
		{ "detect\n\n", 0, "two trailing newlines" },
		{ " detect", 0, "leading space" },
		{ "detect ", 0, "trailing space" },
		{ "detect\t\n", 0, "tab before newline" },
		{ "detect \n", 0, "space before newline" },
		{ "\tdetect", 0, "leading tab" },
		{ "DETECT", 0, "upper case" },
		{ "Detect", 0, "capitalised" },
		{ "det\0ect", 7, "embedded NUL" },
		{ "detect\0", 7, "trailing NUL" },
		{ "\0detect", 7, "leading NUL" },
		{ "detec", 0, "prefix" },
		{ "detectx", 0, "suffix" },
		{ "detect\nx", 0, "text after newline" },
		{ "\ndetect", 0, "leading newline" },
		{ "stockstock", 0, "repeated" },
		{ "baseline1", 0, "longest name plus one" },
		{ "0", 0, "number" },
		{ "3", 0, "enum value" },
		{ "invalid", 0, "the out-of-range name" },
		{ page_of('a'), 4096, "4096 chars" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		enum aws_policy out = AWS_POLICY_UPSTREAM;
		int ret = aws_policy_parse(bad[i].buf, input_len(&bad[i]),
					   &out);

		CHECK(tc, ret == -22, "%s accepted (%d)", bad[i].what, ret);
		CHECK(tc, out == AWS_POLICY_UPSTREAM, "%s: output written",
		      bad[i].what);
	}

	/* 4096 bytes whose first ones are a valid name are still too long */
	{
		static char big[4096];
		enum aws_policy out = AWS_POLICY_UPSTREAM;

		memset(big, '\n', sizeof(big));
		memcpy(big, "detect", 6);
		CHECK(tc, aws_policy_parse(big, sizeof(big), &out) == -22,
		      "detect + 4090 newlines accepted");
	}
}

static void test_ratio_parse_good(struct aws_tc *tc)
{
	const struct {
		const char *buf;
		unsigned int want;
	} good[] = {
		{ "auto", AWS_RATIO_AUTO },
		{ "auto\n", AWS_RATIO_AUTO },
		{ "1", 1 },
		{ "1\n", 1 },
		{ "2", 2 },
		{ "10", 10 },
		{ "100", 100 },
		{ "999", 999 },
		{ "1000", 1000 },
		{ "1023", 1023 },
		{ "1024", 1024 },
		{ "1024\n", 1024 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		unsigned int out = 77777;
		int ret = aws_ratio_parse(good[i].buf, strlen(good[i].buf),
					  &out);

		CHECK(tc, ret == 0 && out == good[i].want, "\"%s\": %d/%u",
		      good[i].buf, ret, out);
	}
	{
		unsigned int out = 0;

		/* length excludes the trailing junk */
		CHECK(tc, aws_ratio_parse("12x", 2, &out) == 0 && out == 12,
		      "len-limited \"12\": %u", out);
	}
	CHECK(tc, AWS_RATIO_MAX == 1024 && AWS_RATIO_AUTO == 0, "constants");
}

static void test_ratio_parse_bad(struct aws_tc *tc)
{
	const struct parse_input bad[] = {
		{ "", 0, "empty" },
		{ "\n", 0, "newline only" },
		{ "0", 0, "zero" },
		{ "0\n", 0, "zero newline" },
		{ "00", 0, "double zero" },
		{ "01", 0, "leading zero" },
		{ "-1", 0, "negative" },
		{ "-0", 0, "minus zero" },
		{ "+5", 0, "plus sign" },
		{ "1025", 0, "one over the max" },
		{ "2048", 0, "over the max" },
		{ "4294967297", 0, "2^32 + 1 (wraps to 1 in u32)" },
		{ "4294968320", 0, "2^32 + 1024" },
		{ "99999999999999999999", 0, "overflows u64" },
		{ "0x10", 0, "hex" },
		{ "0X10", 0, "hex upper" },
		{ "010", 0, "octal-looking" },
		{ "1e3", 0, "exponent" },
		{ "1.0", 0, "decimal point" },
		{ " 5", 0, "leading space" },
		{ "5 ", 0, "trailing space" },
		{ "5\n\n", 0, "two newlines" },
		{ "\n5", 0, "leading newline" },
		{ "5\0", 2, "trailing NUL" },
		{ "1\0002", 3, "embedded NUL" },
		{ "au\0to", 5, "NUL in auto" },
		{ "AUTO", 0, "upper-case auto" },
		{ "auto\n\n", 0, "auto two newlines" },
		{ "autox", 0, "auto suffix" },
		{ "aut", 0, "auto prefix" },
		{ " auto", 0, "auto leading space" },
		{ "five", 0, "word" },
		{ page_of('1'), 4096, "4096 digits" },
		{ page_of('a'), 4096, "4096 letters" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned int out = 77777;
		int ret = aws_ratio_parse(bad[i].buf, input_len(&bad[i]), &out);

		CHECK(tc, ret == -22, "%s accepted (%d, %u)", bad[i].what, ret,
		      out);
		CHECK(tc, out == 77777, "%s: output written", bad[i].what);
	}
}

/* Every value in range parses to itself; the two neighbours fail. */
static void test_ratio_parse_all(struct aws_tc *tc)
{
	unsigned int v;
	char buf[16];

	for (v = 0; v <= AWS_RATIO_MAX + 1; v++) {
		unsigned int out = 77777;
		int n = snprintf(buf, sizeof(buf), "%u\n", v);
		int ret = aws_ratio_parse(buf, (size_t)n, &out);

		if (v >= 1 && v <= AWS_RATIO_MAX)
			CHECK(tc, ret == 0 && out == v, "%u: %d/%u", v, ret,
			      out);
		else
			CHECK(tc, ret == -22, "%u accepted", v);
	}
}

const struct aws_test_case aws_parse_cases[] = {
	{ "policy_names", test_policy_names },
	{ "policy_parse_good", test_policy_parse_good },
	{ "policy_parse_bad", test_policy_parse_bad },
	{ "ratio_parse_good", test_ratio_parse_good },
	{ "ratio_parse_bad", test_ratio_parse_bad },
	{ "ratio_parse_all", test_ratio_parse_all },
};
const unsigned int aws_nr_parse_cases =
	ARRAY_SIZE(aws_parse_cases);
