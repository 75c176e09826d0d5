/* The job database's schema, as migrations (docs/jobdb.md, "Schema"):
 * migration N brings a database from version N-1 to N. Each statement is
 * idempotent (IF NOT EXISTS, OR REPLACE), because MariaDB commits DDL
 * statement by statement: a migration cut short is completed by the next
 * start. */
#include <stddef.h>

#include "jobdb/schema.h"

static const char *const v1[] = {
	"CREATE TABLE IF NOT EXISTS jobs ("
	" id BIGINT UNSIGNED NOT NULL PRIMARY KEY,"
	" array_job BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" array_task BIGINT NOT NULL DEFAULT -1,"
	" user VARCHAR(256) NOT NULL DEFAULT '',"
	" uid BIGINT NOT NULL DEFAULT -1,"
	" account VARCHAR(256) NOT NULL DEFAULT '',"
	" `partition` VARCHAR(256) NOT NULL DEFAULT '',"
	" name VARCHAR(256) NOT NULL DEFAULT '',"
	" nodelist MEDIUMTEXT NOT NULL,"
	" nnodes BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" ntasks BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" ncpus BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" submit_ns BIGINT NOT NULL DEFAULT 0,"
	" start_ns BIGINT NOT NULL DEFAULT 0,"
	" end_ns BIGINT NOT NULL DEFAULT 0,"
	" state VARCHAR(16) NOT NULL DEFAULT 'UNKNOWN',"
	" exit_code BIGINT NOT NULL DEFAULT -1,"
	" exit_signal BIGINT NOT NULL DEFAULT 0,"
	" updated_ns BIGINT NOT NULL DEFAULT 0,"
	" KEY jobs_user (user, start_ns), KEY jobs_start (start_ns),"
	" KEY jobs_end (end_ns), KEY jobs_app (name(64), nnodes)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	"CREATE TABLE IF NOT EXISTS job_steps ("
	" job BIGINT UNSIGNED NOT NULL,"
	" step VARCHAR(256) NOT NULL,"
	" name VARCHAR(256) NOT NULL DEFAULT '',"
	" nodelist MEDIUMTEXT NOT NULL,"
	" nnodes BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" ntasks BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" start_ns BIGINT NOT NULL DEFAULT 0,"
	" end_ns BIGINT NOT NULL DEFAULT 0,"
	" state VARCHAR(16) NOT NULL DEFAULT 'UNKNOWN',"
	" exit_code BIGINT NOT NULL DEFAULT -1,"
	" PRIMARY KEY (job, step)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	/* the node-to-job index: end_ns is INT64_MAX while a job runs */
	"CREATE TABLE IF NOT EXISTS job_nodes ("
	" node VARCHAR(255) NOT NULL,"
	" job BIGINT UNSIGNED NOT NULL,"
	" start_ns BIGINT NOT NULL,"
	" end_ns BIGINT NOT NULL,"
	" PRIMARY KEY (node, job), KEY job_nodes_time (node, start_ns),"
	" KEY job_nodes_job (job)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	"CREATE TABLE IF NOT EXISTS fwdmap ("
	" compute MEDIUMTEXT NOT NULL,"
	" compute_hash BIGINT UNSIGNED NOT NULL,"
	" fwd VARCHAR(255) NOT NULL,"
	" from_ns BIGINT NOT NULL,"
	" to_ns BIGINT NOT NULL,"
	" PRIMARY KEY (compute_hash, fwd, from_ns, to_ns)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	"CREATE TABLE IF NOT EXISTS fwdmap_nodes ("
	" node VARCHAR(255) NOT NULL,"
	" from_ns BIGINT NOT NULL,"
	" to_ns BIGINT NOT NULL,"
	" fwd VARCHAR(255) NOT NULL,"
	" PRIMARY KEY (node, from_ns)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	/* the per-job report (beacon-analyzd) */
	"CREATE TABLE IF NOT EXISTS job_summary ("
	" job BIGINT UNSIGNED NOT NULL PRIMARY KEY,"
	" computed_ns BIGINT NOT NULL,"
	" partial TINYINT NOT NULL DEFAULT 0,"
	" read_bytes BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" write_bytes BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" read_bw_mean DOUBLE NOT NULL DEFAULT 0,"
	" read_bw_peak DOUBLE NOT NULL DEFAULT 0,"
	" write_bw_mean DOUBLE NOT NULL DEFAULT 0,"
	" write_bw_peak DOUBLE NOT NULL DEFAULT 0,"
	" iops DOUBLE NOT NULL DEFAULT 0,"
	" meta_ops BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" io_nodes BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" io_procs BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" mode VARCHAR(8) NOT NULL DEFAULT 'none',"
	" KEY job_summary_bytes (read_bytes, write_bytes)"
	") ENGINE=InnoDB",
	"CREATE TABLE IF NOT EXISTS job_layer ("
	" job BIGINT UNSIGNED NOT NULL,"
	" layer VARCHAR(16) NOT NULL,"
	" component VARCHAR(255) NOT NULL,"
	" read_bytes BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" write_bytes BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" ops BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" share DOUBLE NOT NULL DEFAULT 0,"
	" PRIMARY KEY (job, layer, component)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	"CREATE TABLE IF NOT EXISTS job_phases ("
	" job BIGINT UNSIGNED NOT NULL,"
	" idx INT UNSIGNED NOT NULL,"
	" start_ns BIGINT NOT NULL,"
	" end_ns BIGINT NOT NULL,"
	" read_bytes BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" write_bytes BIGINT UNSIGNED NOT NULL DEFAULT 0,"
	" PRIMARY KEY (job, idx)"
	") ENGINE=InnoDB",
	"CREATE TABLE IF NOT EXISTS job_findings ("
	" job BIGINT UNSIGNED NOT NULL,"
	" code VARCHAR(64) NOT NULL,"
	" severity VARCHAR(16) NOT NULL,"
	" message VARCHAR(1024) NOT NULL,"
	" evidence TEXT NOT NULL,"
	" PRIMARY KEY (job, code)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	/* views for the common questions (docs/jobdb.md, "Views") */
	"CREATE OR REPLACE VIEW job_times AS SELECT id, user, name,"
	" `partition`, nnodes, state,"
	" FROM_UNIXTIME(start_ns DIV 1000000000) AS start_time,"
	" IF(end_ns = 0, NULL, FROM_UNIXTIME(end_ns DIV 1000000000)) AS end_time,"
	" IF(end_ns = 0, NULL, (end_ns - start_ns) DIV 1000000000) AS runtime_s,"
	" nodelist FROM jobs",
	"CREATE OR REPLACE VIEW node_jobs AS SELECT n.node, n.job, j.user,"
	" j.name, n.start_ns, n.end_ns FROM job_nodes n JOIN jobs j ON j.id = n.job",
	"CREATE OR REPLACE VIEW heaviest_jobs AS SELECT j.id, j.user, j.name,"
	" j.nnodes, s.read_bytes, s.write_bytes,"
	" s.read_bytes + s.write_bytes AS bytes, s.mode"
	" FROM jobs j JOIN job_summary s ON s.job = j.id",
	NULL,
};

/* Version 2: anomalies (docs/anomaly.md), the jobs each names, and the
 * alert e-mails sent or waiting for each. */
static const char *const v2[] = {
	"ALTER TABLE job_summary ADD COLUMN IF NOT EXISTS"
	" meta_rate_io DOUBLE NOT NULL DEFAULT 0",
	"CREATE TABLE IF NOT EXISTS anomalies ("
	" id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,"
	" kind VARCHAR(24) NOT NULL,"
	" component VARCHAR(255) NOT NULL,"
	" from_ns BIGINT NOT NULL,"
	" to_ns BIGINT NOT NULL,"
	" severity VARCHAR(16) NOT NULL,"
	" score DOUBLE NOT NULL DEFAULT 0,"
	" evidence TEXT NOT NULL,"
	" state VARCHAR(16) NOT NULL DEFAULT 'open',"
	" detected_ns BIGINT NOT NULL,"
	" updated_ns BIGINT NOT NULL,"
	" acked_by VARCHAR(64) NOT NULL DEFAULT '',"
	" acked_ns BIGINT NOT NULL DEFAULT 0,"
	" closed_ns BIGINT NOT NULL DEFAULT 0,"
	" KEY by_component (kind, component, to_ns),"
	" KEY by_time (to_ns, from_ns),"
	" KEY by_state (state, to_ns)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	"CREATE TABLE IF NOT EXISTS anomaly_jobs ("
	" anomaly BIGINT UNSIGNED NOT NULL,"
	" job BIGINT UNSIGNED NOT NULL,"
	" role VARCHAR(16) NOT NULL,"
	" PRIMARY KEY (anomaly, job),"
	" KEY by_job (job)"
	") ENGINE=InnoDB",
	"CREATE TABLE IF NOT EXISTS alerts ("
	" id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,"
	" anomaly BIGINT UNSIGNED NOT NULL,"
	" kind VARCHAR(16) NOT NULL,"
	" seq INT UNSIGNED NOT NULL,"
	" queued_ns BIGINT NOT NULL,"
	" state VARCHAR(16) NOT NULL,"
	" attempts INT UNSIGNED NOT NULL DEFAULT 0,"
	" next_try_ns BIGINT NOT NULL,"
	" last_try_ns BIGINT NOT NULL DEFAULT 0,"
	" sent_ns BIGINT NOT NULL DEFAULT 0,"
	" recipients VARCHAR(1024) NOT NULL DEFAULT '',"
	" message_id VARCHAR(255) NOT NULL DEFAULT '',"
	" last_error VARCHAR(1024) NOT NULL DEFAULT '',"
	" UNIQUE KEY one (anomaly, kind, seq),"
	" KEY due (state, next_try_ns),"
	" KEY by_sent (sent_ns)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	"CREATE TABLE IF NOT EXISTS job_io_phases ("
	" job BIGINT UNSIGNED NOT NULL,"
	" idx INT UNSIGNED NOT NULL,"
	" start_ns BIGINT NOT NULL,"
	" end_ns BIGINT NOT NULL,"
	" volume DOUBLE NOT NULL,"
	" mean_bw DOUBLE NOT NULL,"
	" peak_bw DOUBLE NOT NULL,"
	" PRIMARY KEY (job, idx)"
	") ENGINE=InnoDB",
	"CREATE INDEX IF NOT EXISTS by_app ON jobs (name, nnodes, end_ns)",
	"CREATE OR REPLACE VIEW open_anomalies AS SELECT id, kind, component,"
	" FROM_UNIXTIME(from_ns DIV 1000000000) AS from_time,"
	" FROM_UNIXTIME(to_ns DIV 1000000000) AS to_time, severity, state"
	" FROM anomalies WHERE state <> 'closed'",
	NULL,
};

/* Version 3: the web service's accounts and sessions (jobdb/users.h,
 * docs/api.md): a session is kept by a hash of its token, never the
 * token. */
static const char *const v3[] = {
	"CREATE TABLE IF NOT EXISTS users ("
	" name VARCHAR(64) NOT NULL PRIMARY KEY,"
	" role VARCHAR(16) NOT NULL,"
	" password_hash VARCHAR(128) NOT NULL,"
	" created_ns BIGINT NOT NULL,"
	" disabled TINYINT NOT NULL DEFAULT 0"
	") ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin",
	"CREATE TABLE IF NOT EXISTS sessions ("
	" token_hash CHAR(64) NOT NULL PRIMARY KEY,"
	" user VARCHAR(64) NOT NULL,"
	" csrf CHAR(64) NOT NULL,"
	" created_ns BIGINT NOT NULL,"
	" expires_ns BIGINT NOT NULL,"
	" last_seen_ns BIGINT NOT NULL,"
	" KEY by_user (user), KEY by_expiry (expires_ns)"
	") ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin",
	NULL,
};

/* Version 4: what the component anomaly detectors have examined
 * (jobdb/marks.h, docs/anomaly.md "Catch-up"): per record store and
 * interval, the records it held when it was examined. */
static const char *const v4[] = {
	"CREATE TABLE IF NOT EXISTS detect_marks ("
	" store VARCHAR(255) NOT NULL,"
	" t_ns BIGINT NOT NULL,"
	" len_ns BIGINT NOT NULL,"
	" records BIGINT UNSIGNED NOT NULL,"
	" examined_ns BIGINT NOT NULL,"
	" rounds INT UNSIGNED NOT NULL DEFAULT 1,"
	" PRIMARY KEY (store, t_ns)"
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
	NULL,
};

const char *const *const bcn_jobdb_migrations[BCN_JOBDB_SCHEMA_MAX + 1] = {
	NULL, v1, v2, v3, v4,
};
