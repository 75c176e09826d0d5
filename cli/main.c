/* beacon: the command-line tool. Dispatches to one subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static const struct bcn_command commands[] = {
	{ "decode", bcn_cmd_decode,
	  "print the records of frame streams as JSON lines" },
	{ "schema", bcn_cmd_schema,
	  "print the record model as Markdown (docs/records.md)" },
	{ "replay", bcn_cmd_replay,
	  "send frame streams to log servers through the sender library" },
	{ "keygen", bcn_cmd_keygen,
	  "write a new site key, or a node's key (--node), mode 0600" },
	{ "query", bcn_cmd_query,
	  "print records or bucketed sums from the record store" },
	{ "import-jobs", bcn_cmd_import_jobs,
	  "store job records (sacct, SWF, CSV) in the job database" },
	{ "import-map", bcn_cmd_import_map,
	  "store compute-to-forwarding map files in the job database" },
	{ "jobs", bcn_cmd_jobs, "list the jobs of the job database" },
	{ "job", bcn_cmd_job, "the I/O report of one job" },
	{ "top", bcn_cmd_top, "the jobs doing I/O now, busiest first" },
	{ "net", bcn_cmd_net, "network traffic per switch or port over time" },
	{ "anomalies", bcn_cmd_anomalies,
	  "list, acknowledge or detect anomalies" },
	{ "user", bcn_cmd_user,
	  "add, delete or change the web service's accounts" },
	{ "archive", bcn_cmd_archive,
	  "archive a job's records (second pass), or expand an archive" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: beacon COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n'beacon COMMAND --help' describes one command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "beacon: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
