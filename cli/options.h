/* Options of the beacon subcommands that read one part of a shared
 * configuration file: the defaults of a table, then the keys of
 * --config FILE that start with a prefix (the file may hold any beacon
 * program's keys), then the command line's --key value, --key=value,
 * --flag and --no-flag, which win over the file. */
#ifndef BCN_CLI_OPTIONS_H
#define BCN_CLI_OPTIONS_H

#include <stddef.h>

#include "common/config.h"

/* Applies them to obj; *argi gets the index of the first argument that is
 * not an option (after "--" if given). Returns 0, BCN_CONFIG_HELP for
 * --help or -h, or a negative code with err set. */
int bcn_cli_configure(const struct bcn_config_opt *tab, void *obj,
		      const char *prefix, int argc, char **argv, int *argi,
		      char *err, size_t errlen);

#endif
