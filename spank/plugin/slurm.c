/*
 * slurm.c - what only slurmctld knows, asked from srun: the job's
 * nodes (a standalone srun has no SLURM_JOB_NODELIST of its own) and a
 * node's NodeAddr. The functions are the libslurm API that srun itself is
 * linked with (libslurmfull); the plugin tests replace this file.
 */

#include <errno.h>
#include <slurm/slurmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "net/net.h"
#include "plugin/slurm.h"
#include "plugin/slurm_compat.h"

bool mcp_srun_other_cluster(void)
{
	return working_cluster_rec != NULL;
}

int mcp_job_facts(uint32_t job_id, struct mcp_job_facts *f, struct mcr_error *err)
{
	job_info_msg_t *msg = NULL;
	int rc = -1;

	memset(f, 0, sizeof(*f));
	if (mcp_slurm_load_job(&msg, job_id) != 0 || !msg) {
		/* a job slurmctld no longer knows has ended long ago */
		if (errno == ESLURM_INVALID_JOB_ID) {
			f->ended = true;
			return 0;
		}
		return mcri_error_set(err, MCR_ESTATE, "cannot ask Slurm about job %u: %s", job_id,
				      mcp_slurm_last_error());
	}
	for (uint32_t i = 0; i < msg->record_count; i++) {
		slurm_job_info_t *j = &msg->job_array[i];

		if (j->job_id != job_id)
			continue;
		f->ended = mcp_job_state_ended(j->job_state);
		snprintf(f->state, sizeof(f->state), "%s", mcp_job_state_name(j->job_state));
		f->het_leader = j->het_job_id && j->het_job_id != NO_VAL ? j->het_job_id : 0;
		f->restarts = j->restart_cnt;
		snprintf(f->work_dir, sizeof(f->work_dir), "%s", j->work_dir ? j->work_dir : "");
		f->start_time = (long long)j->start_time;
		snprintf(f->cluster, sizeof(f->cluster), "%s", j->cluster ? j->cluster : "");
		rc = 0;
		break;
	}
	if (rc)
		mcri_error_set(err, MCR_ESTATE, "Slurm does not report job %u", job_id);
	slurm_free_job_info_msg(msg);
	return rc;
}

int mcp_step_facts(uint32_t job_id, uint32_t step_id, struct mcp_step_facts *f, struct mcr_error *err)
{
	job_step_info_response_msg_t *resp = NULL;

	memset(f, 0, sizeof(*f));
	if (mcp_slurm_get_step(job_id, step_id, &resp) != 0 || !resp) {
		if (errno == ESLURM_INVALID_JOB_ID) {
			f->ended = true;
			return 0;
		}
		return mcri_error_set(err, MCR_ESTATE, "cannot ask Slurm about step %u.%u: %s", job_id, step_id,
				      mcp_slurm_last_error());
	}
	f->ended = true;
	for (uint32_t i = 0; i < resp->job_step_count; i++)
		if (resp->job_steps[i].step_id.step_id == step_id &&
		    (resp->job_steps[i].state & JOB_STATE_BASE) <= JOB_SUSPENDED)
			f->ended = false;
	slurm_free_job_step_info_response_msg(resp);
	return 0;
}

int mcp_step_nodes(uint32_t job_id, uint32_t step_id, char **nodelist, struct mcr_error *err)
{
	job_step_info_response_msg_t *resp = NULL;

	*nodelist = NULL;
	if (mcp_slurm_get_step(job_id, step_id, &resp) != 0 || !resp)
		return mcri_error_set(err, MCR_ESTATE, "cannot ask Slurm for the nodes of step %u.%u: %s", job_id,
				      step_id, mcp_slurm_last_error());
	for (uint32_t i = 0; i < resp->job_step_count && !*nodelist; i++)
		if (resp->job_steps[i].step_id.step_id == step_id && resp->job_steps[i].nodes &&
		    *resp->job_steps[i].nodes && !(*nodelist = strdup(resp->job_steps[i].nodes)))
			break;
	slurm_free_job_step_info_response_msg(resp);
	if (!*nodelist)
		return mcri_error_set(err, MCR_ESTATE, "Slurm reports no nodes for step %u.%u", job_id, step_id);
	return 0;
}

int mcp_job_nodes(uint32_t job_id, char **nodelist, struct mcr_error *err)
{
	job_info_msg_t *msg = NULL;
	int rc = -1;

	*nodelist = NULL;
	if (mcp_slurm_load_job(&msg, job_id) != 0 || !msg)
		return mcri_error_set(err, MCR_ESTATE, "cannot ask Slurm for the nodes of job %u: %s", job_id,
				      mcp_slurm_last_error());
	for (uint32_t i = 0; i < msg->record_count; i++) {
		slurm_job_info_t *j = &msg->job_array[i];

		if (j->job_id == job_id && j->nodes && *j->nodes) {
			*nodelist = strdup(j->nodes);
			if (*nodelist)
				rc = 0;
			break;
		}
	}
	if (rc && !*nodelist)
		mcri_error_set(err, MCR_ESTATE, "Slurm reports no nodes for job %u", job_id);
	slurm_free_job_info_msg(msg);
	return rc;
}

int mcp_node_address(const char *node, char *addr, size_t size, struct mcr_error *err)
{
	node_info_msg_t *msg = NULL;
	const char *node_addr = node;
	int rc;

	/* a failed lookup falls back to the node name itself */
	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) == 0 && msg && msg->record_count > 0 &&
	    msg->node_array[0].node_addr && *msg->node_array[0].node_addr)
		node_addr = msg->node_array[0].node_addr;
	rc = mcri_resolve_ipv4(node_addr, addr, size, err);
	if (msg)
		slurm_free_node_info_msg(msg);
	return rc;
}
