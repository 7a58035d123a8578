/*
 * slurm_compat.h - the one place where the plugin meets the differences of
 * the Slurm API between the releases it is built and tested against
 * (22.05, 24.11 and 26.05), keyed on SLURM_VERSION_NUMBER. Only
 * slurm.c (the plugin) and tools/slurm_job.c (mooncake-recipe
 * status) call libslurm; they include this file.
 *
 *   errors    the RPCs report through errno (22.05's slurm_get_errno()
 *             only returned it, and 24.11 removed it)
 *   job RPCs  from 25.11 on, a job is named by a slurm_step_id_t (its job
 *             id, or the new sluid) instead of a uint32_t job id; on every
 *             release they ask for the federation first unless SHOW_LOCAL
 */
#ifndef MCP_SLURM_COMPAT_H_
#define MCP_SLURM_COMPAT_H_

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#ifndef SLURM_VERSION_NUM
#error "slurm_version.h without SLURM_VERSION_NUM: Slurm older than 2.1 is not supported"
#endif

/* slurm_load_job(msg, job_id, flags) on every release */
static inline int mcp_slurm_load_job_flags(job_info_msg_t **msg, uint32_t job_id, uint16_t flags)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_load_job(msg, id, flags);
#else
	return slurm_load_job(msg, job_id, flags);
#endif
}

/* slurm_load_ctl_conf()'s answer freed, on every release (26.05 renamed
 * slurm_free_ctl_conf slurm_free_conf) */
static inline void mcp_slurm_free_conf(slurm_conf_t *conf)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

/* slurm_get_job_steps() of one step, on every release */
static inline int mcp_slurm_get_step_flags(uint32_t job_id, uint32_t step_id, job_step_info_response_msg_t **resp,
					   uint16_t flags)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	id.step_id = step_id;
	return slurm_get_job_steps(&id, resp, flags);
#else
	return slurm_get_job_steps((time_t)0, job_id, step_id, resp, flags);
#endif
}

/* Both ask slurmctld for the federation first (an RPC of its own) unless
 * told SHOW_LOCAL: this cluster is asked first, and the federation only
 * when this cluster does not know the job, holds only the revoked copy of
 * a job that runs on a sibling, or does not list the step (the rare
 * answers; a cluster of no federation then answers the same again). */
static inline bool mcp_slurm_revoked(const job_info_msg_t *msg, uint32_t job_id)
{
	for (uint32_t i = 0; i < msg->record_count; i++)
		if (msg->job_array[i].job_id == job_id && (msg->job_array[i].job_state & JOB_REVOKED))
			return true;
	return false;
}

static inline int mcp_slurm_load_job(job_info_msg_t **msg, uint32_t job_id)
{
	int rc = mcp_slurm_load_job_flags(msg, job_id, SHOW_ALL | SHOW_LOCAL);

	if (rc == 0 && *msg && mcp_slurm_revoked(*msg, job_id)) {
		slurm_free_job_info_msg(*msg);
		*msg = NULL;
		rc = -1;
		errno = ESLURM_INVALID_JOB_ID;
	}
	if (rc != 0 && errno == ESLURM_INVALID_JOB_ID)
		rc = mcp_slurm_load_job_flags(msg, job_id, SHOW_ALL);
	return rc;
}

static inline int mcp_slurm_get_step(uint32_t job_id, uint32_t step_id, job_step_info_response_msg_t **resp)
{
	int rc = mcp_slurm_get_step_flags(job_id, step_id, resp, SHOW_ALL | SHOW_LOCAL);
	bool listed = false;

	for (uint32_t i = 0; rc == 0 && *resp && i < (*resp)->job_step_count; i++)
		listed |= (*resp)->job_steps[i].step_id.step_id == step_id;
	if (rc == 0 && *resp && !listed) {
		slurm_free_job_step_info_response_msg(*resp);
		*resp = NULL;
		rc = -1;
		errno = ESLURM_INVALID_JOB_ID;
	}
	if (rc != 0 && errno == ESLURM_INVALID_JOB_ID)
		rc = mcp_slurm_get_step_flags(job_id, step_id, resp, SHOW_ALL);
	return rc;
}

/* the name squeue shows for a job's state (enum job_states; COMPLETING
 * for a job that is completing) */
static inline const char *mcp_job_state_name(uint32_t state)
{
	static const char *const names[] = {
		"PENDING", "RUNNING",   "SUSPENDED", "COMPLETED", "CANCELLED", "FAILED",
		"TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY",
	};
	uint32_t base = state & JOB_STATE_BASE;

	if (state & JOB_COMPLETING)
		return "COMPLETING";
	return base < sizeof(names) / sizeof(names[0]) ? names[base] : "?";
}

/* has a job of that state ended (or is it completing)? */
static inline bool mcp_job_state_ended(uint32_t state)
{
	return (state & JOB_STATE_BASE) >= JOB_COMPLETE || (state & JOB_COMPLETING);
}

/* Slurm's text for the error of the RPC that just failed */
static inline const char *mcp_slurm_last_error(void)
{
	return slurm_strerror(errno);
}

#endif /* MCP_SLURM_COMPAT_H_ */
