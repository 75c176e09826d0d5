/* The job database's migrations (jobdb/schema.c). */
#ifndef BCN_JOBDB_SCHEMA_H
#define BCN_JOBDB_SCHEMA_H

#define BCN_JOBDB_SCHEMA_MAX 4

/* bcn_jobdb_migrations[n]: the NULL-terminated statements that bring a
 * database from version n - 1 to n (index 0 unused). */
extern const char *const *const bcn_jobdb_migrations[BCN_JOBDB_SCHEMA_MAX + 1];

#endif
