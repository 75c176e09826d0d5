/* Options of the beacon subcommands that read one part of a shared
 * configuration file (cli/options.h). */
#include <stdbool.h>
#include <string.h>

#include "cli/options.h"
#include "common/error.h"

static const struct bcn_config_opt *find_opt(const struct bcn_config_opt *tab,
					     const char *name, size_t n)
{
	for (; tab->name; tab++)
		if (strlen(tab->name) == n && !strncmp(tab->name, name, n))
			return tab;
	return NULL;
}

/* One "--key value", "--key=value", "--flag" or "--no-flag" at argv[*i]
 * ('-' in key as '_'). Returns 0, BCN_CONFIG_HELP or a negative code. */
static int apply_arg(const struct bcn_config_opt *tab, void *c,
		     int argc, char **argv, int *i, char *err, size_t errlen)
{
	char key[BCN_CFG_KEY_MAX + 1];
	const char *a = argv[*i] + 2, *eq = strchr(a, '='), *val;
	const struct bcn_config_opt *o;
	size_t n = eq ? (size_t)(eq - a) : strlen(a);
	bool no = false;

	if (!strcmp(argv[*i], "--help") || !strcmp(argv[*i], "-h"))
		return BCN_CONFIG_HELP;
	if (n > BCN_CFG_KEY_MAX)
		return bcn_fail(err, errlen, -BCN_ESYNTAX,
				"unknown option '%s'", argv[*i]);
	for (size_t k = 0; k < n; k++)
		key[k] = a[k] == '-' ? '_' : a[k];
	key[n] = '\0';
	o = find_opt(tab, key, n);
	if (!o && n > 3 && !strncmp(key, "no_", 3) &&
	    (o = find_opt(tab, key + 3, n - 3)) && o->type == BCN_CFG_BOOL)
		no = true;
	if (!o || (no && eq))
		return bcn_fail(err, errlen, -BCN_ESYNTAX,
				"unknown option '%s'", argv[*i]);
	if (o->type == BCN_CFG_BOOL && !eq)
		val = no ? "no" : "yes";
	else if (eq)
		val = eq + 1;
	else if (*i + 1 < argc)
		val = argv[++*i];
	else
		return bcn_fail(err, errlen, -BCN_ESYNTAX,
				"option '%s' needs a value", argv[*i]);
	return bcn_config_set(tab, c, o->name, val, err, errlen);
}

int bcn_cli_configure(const struct bcn_config_opt *tab, void *c,
		      const char *prefix, int argc, char **argv, int *argi,
		      char *err, size_t errlen)
{
	const char *config = NULL;
	int i, rc;

	rc = bcn_config_defaults(tab, c, err, errlen);
	for (i = 1; !rc && i + 1 < argc; i++)
		if (!strcmp(argv[i], "--config"))
			config = argv[i + 1];
	if (!rc && config)
		rc = bcn_config_load_prefix(tab, c, config, prefix, err,
					    errlen);
	for (i = 1; !rc && i < argc && !strncmp(argv[i], "-", 1); i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--config"))
			i++;
		else
			rc = apply_arg(tab, c, argc, argv, &i, err, errlen);
	}
	*argi = i;
	return rc;
}

