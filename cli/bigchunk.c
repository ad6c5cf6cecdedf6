// SPDX-License-Identifier: GPL-2.0
/*
 * bigchunk: dispatch "bigchunk CMD [ARGS]" through one sorted table. Help text lives
 * in the table only, so 'bigchunk help', 'bigchunk CMD --help' and the man pages agree.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void usage_all(FILE *fp)
{
	const struct bc_command *c;

	fprintf(fp, "usage: bigchunk COMMAND [ARGS]\n\n"
		"Would an N-MiB physically contiguous allocation succeed on this machine, under\n"
		"this workload, where, at what cost, and if not, which page blocks it?\n\n"
		"Commands:\n");
	for (c = bc_commands; c->name; c++)
		fprintf(fp, "  %-10s %s\n", c->name, c->summary);
	fprintf(fp, "\nRun 'bigchunk COMMAND --help' for the options of one command.\n");
}

int main(int argc, char **argv)
{
	const struct bc_command *c;

	if (argc < 2) {
		usage_all(stderr);
		return EXIT_BAD;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc > 2)
			return cli_usage(argv[2], 0, EXIT_OK);
		usage_all(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("bigchunk 0.1\n");
		return EXIT_OK;
	}
	for (c = bc_commands; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->run(argc - 1, argv + 1);
	fprintf(stderr, "bigchunk: '%s' is not a command; see 'bigchunk help'\n", argv[1]);
	return EXIT_BAD;
}
