// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const char cmd_check_usage[] =
	"usage: bigchunk check ...\n"
	"(not yet available in this build)\n";

int cmd_check(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_usage("check", 0, EXIT_OK);
	return cli_error("check", "not yet available in this build");
}
