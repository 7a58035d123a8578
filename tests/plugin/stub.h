/* stub.h - a contract-compatible stand-in for the SPANK API that Slurm
 * gives the plugin (spank.h as of 22.05), so the callbacks can be driven per
 * context in a test process. Fast, not the only proof: tests/cluster/ runs
 * the same plugin under real srun, sbatch and slurmstepd. */
#ifndef MCK_STUB_H_
#define MCK_STUB_H_

#include <stdint.h>
#include <sys/types.h>

#include <slurm/spank.h>

struct stub {
	spank_context_t context;
	uint32_t job_id, step_id, task_id; /* task_id: local and global */
	uint32_t local_tasks;              /* the step's tasks on this node (1) */
	uid_t uid;
	gid_t groups[64]; /* the job's supplementary groups: this process's */
	int ngroups;
	char *env[128]; /* the step's environment (remote) */
	struct spank_option *opts[8];
	int nopts;
	char log[16384];        /* everything slurm_error/info/... printed */
	int errors;             /* slurm_error calls */
	const char *nodes;      /* what slurmctld reports for the job */
	const char *step_nodes; /* ... for the step (NULL: the job's) */
	const char *hostname;   /* what gethostname() says (NULL: the real one) */
	bool job_ended;         /* what slurmctld says of the job */
	uint32_t het_leader;
	int restarts; /* mcp_job_facts */
	const char *work_dir;
	long long start_time; /* mcp_job_facts: the job's start (kept by
				   * stub_reset: a test sets it, and clears it) */
	const char *cluster;
	int facts_asked; /* mcp_job_facts calls */
	bool step_ended; /* what slurmctld says of the master step */
	int step_asked;  /* mcp_step_facts calls */
};
extern struct stub stub;

void stub_reset(spank_context_t context);
void stub_setenv(const char *name, const char *value); /* step env */
const char *stub_getenv(const char *name);
/* Run the registered option callback `name` as Slurm would. */
int stub_option(const char *name, const char *value, int remote);

#endif
