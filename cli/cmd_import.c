// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

const char cmd_import_usage[] =
	"usage: bigchunk import ...\n"
	"(not yet available in this build)\n";

int cmd_import(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_usage("import", 0, EXIT_OK);
	return cli_error("import", "not yet available in this build");
}
