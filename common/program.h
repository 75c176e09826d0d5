/* The shape of every beacon daemon and server: a constant table that
 * describes the program (name, description, configuration table, what it
 * runs) and one main() over it. main.c is then a single line:
 *
 *	int main(int argc, char **argv)
 *	{
 *		return bcn_program_main(&bcn_fwdd_program, argc, argv);
 *	}
 *
 * bcn_program_main parses the command line and the configuration file
 * against the table (docs/config.md), answers --help (generated from the
 * table) and --dump-config, checks the settings and calls run(). The
 * collector daemons' run is the collector loop
 * (collectors/runtime/collector.h, BCN_COLLECTOR_PROGRAM). */
#ifndef BCN_PROGRAM_H
#define BCN_PROGRAM_H

#include <stddef.h>

#include "common/config.h"

struct bcn_program {
	const char *name;               /* "beacon-fwdd": usage and messages */
	const char *synopsis;           /* the usage line after the name;
					 * NULL: "[--KEY VALUE ...]" */
	const char *description;        /* --help's paragraph */
	const struct bcn_config_opt *options;
	void *conf;                     /* the struct the options fill */
	/* Optional: checks settings that depend on each other, once the
	 * command line is parsed. Returns 0, or a negative code with a
	 * message in err (the program then exits 2). */
	int (*check)(const struct bcn_program *p, char *err, size_t errlen);
	/* Runs the program over the parsed configuration; returns main()'s
	 * exit status. */
	int (*run)(const struct bcn_program *p);
	const void *kind;               /* what run() needs beyond conf (a
					 * collector: struct
					 * bcn_collector_daemon) */
};

/* Exit statuses of bcn_program_main and the runs it calls. */
#define BCN_EXIT_OK 0
#define BCN_EXIT_FAIL 1                 /* could not start or run */
#define BCN_EXIT_USAGE 2                /* bad command line or configuration */

/* The main() of program p: applies the defaults, parses argv ("--config
 * FILE" and "--KEY VALUE" pairs, the command line winning), prints the
 * usage and generated option list for --help, the effective configuration
 * for --dump-config, calls p->check and then p->run. Never exits the
 * process. Returns the exit status: p->run's, 0 after --help or a dump,
 * 1 when the dump cannot be written, 2 for a bad command line or
 * configuration (with the message and the usage line on stderr). */
int bcn_program_main(const struct bcn_program *p, int argc, char **argv);

#endif
