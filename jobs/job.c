/* The batch-job model: defaults and state names (jobs/job.h). */
#include <string.h>

#include "common/error.h"
#include "jobs/job.h"

#define BCN_X_JSN(id, name) name,
static const char *const state_names[BCN_JOB_STATE_MAX] = {
	BCN_JOB_STATES(BCN_X_JSN)
};
#undef BCN_X_JSN

void bcn_job_init(struct bcn_job *j)
{
	memset(j, 0, sizeof(*j));
	j->array_task = -1;
	j->step = j->user = j->account = j->partition = j->name = "";
	j->nodelist = "";
	j->uid = -1;
	j->state = BCN_JOB_UNKNOWN;
	j->exit_code = -1;
}

const char *bcn_job_state_name(int state)
{
	if (state < 0 || state >= BCN_JOB_STATE_MAX)
		return "UNKNOWN";
	return state_names[state];
}

int bcn_job_state_parse(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] != ' ' && s[n] != '+')
		n++;
	for (int i = 0; i < BCN_JOB_STATE_MAX; i++)
		if (strlen(state_names[i]) == n && !memcmp(s, state_names[i], n))
			return i;
	return -BCN_ESYNTAX;
}
