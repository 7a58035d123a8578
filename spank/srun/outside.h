/*
 * outside.h - an srun from outside the allocation (outside.c).
 */
#ifndef MCP_OUTSIDE_H_
#define MCP_OUTSIDE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The job a command line names with --jobid: `args` holds n bytes of
 * NUL-terminated arguments (as /proc/PID/cmdline). True, with *job_id its
 * number (0 when it does not read as one: J+K, no value). The first
 * --jobid is taken, even one among the task's arguments. */
bool mcp_outside_named_job(const char *args, size_t n, uint32_t *job_id);

/* init_post_opt: true when srun's command line names the job (--jobid):
 * an srun from outside the allocation, whose job's starter decided where
 * its master runs (local_user_init asks slurmctld about the job,
 * mcp_job_facts). */
bool mcp_outside_begin(void);

#endif /* MCP_OUTSIDE_H_ */
