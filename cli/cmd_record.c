// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const char cmd_record_usage[] =
	"usage: bigchunk record ...\n"
	"(not yet available in this build)\n";

int cmd_record(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_usage("record", 0, EXIT_OK);
	return cli_error("record", "not yet available in this build");
}
