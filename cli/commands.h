/* Subcommands of the beacon tool. Each takes argv starting at its own
 * name and returns the process exit status (0 ok, 1 failure, 2 usage). */
#ifndef BCN_CLI_COMMANDS_H
#define BCN_CLI_COMMANDS_H

struct bcn_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

int bcn_cmd_decode(int argc, char **argv);
int bcn_cmd_schema(int argc, char **argv);
int bcn_cmd_replay(int argc, char **argv);
int bcn_cmd_keygen(int argc, char **argv);
int bcn_cmd_query(int argc, char **argv);
int bcn_cmd_import_jobs(int argc, char **argv);
int bcn_cmd_import_map(int argc, char **argv);
int bcn_cmd_jobs(int argc, char **argv);
int bcn_cmd_anomalies(int argc, char **argv);
int bcn_cmd_job(int argc, char **argv);
int bcn_cmd_top(int argc, char **argv);
int bcn_cmd_net(int argc, char **argv);
int bcn_cmd_archive(int argc, char **argv);
int bcn_cmd_user(int argc, char **argv);

#endif
