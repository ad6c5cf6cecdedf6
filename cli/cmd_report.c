// SPDX-License-Identifier: GPL-2.0
#include "cli/cli.h"
const char cmd_report_usage[] = "usage: bigchunk report FILE.db -o report.html\n";
int cmd_report(int argc, char **argv)
{
	return cli_usage("report", 1, EXIT_BAD);
}
