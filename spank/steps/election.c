/*
 * election.c - the election of the srun that starts a job's master, as a
 * pure function of the election's state and what the driver saw (see
 * election.h for the states and master.c for the driver).
 */
#include <string.h>

#include "steps/election.h"

void mcp_election_init(struct mcp_election *el, double timeout, int max_attempts, int max_candidates, double now)
{
	memset(el, 0, sizeof(*el));
	el->state = MCP_EL_LOCK;
	el->attempt = 1;
	el->max_attempts = max_attempts;
	el->max_candidates = max_candidates > 0 ? max_candidates : 1;
	el->timeout = timeout;
	el->deadline = now + timeout;
	el->last = MCP_DO_FINISH; /* nothing done yet */
}

static enum mcp_el_action emit(struct mcp_election *el, enum mcp_el_action a)
{
	el->last = a;
	return a;
}

static enum mcp_el_action end(struct mcp_election *el, enum mcp_el_state state, enum mcp_el_verdict verdict)
{
	el->state = state;
	el->verdict = verdict;
	return emit(el, MCP_DO_FINISH);
}

/* wait a poll interval, then do `a` again */
static enum mcp_el_action later(struct mcp_election *el, enum mcp_el_action a)
{
	el->resume = a;
	return emit(el, MCP_DO_SLEEP);
}

/* on to the next attempt (a failure before we looked, a starter gone, a
 * newer attempt already under way) */
static enum mcp_el_action next_attempt(struct mcp_election *el, int after)
{
	el->attempt = after + 1;
	el->state = MCP_EL_LOCK;
	el->superseded = false;
	if (el->attempt > el->max_attempts)
		return end(el, MCP_EL_FAILED, MCP_V_TOO_MANY);
	return emit(el, MCP_DO_TAKE_LOCK);
}

static enum mcp_el_action on_lock(struct mcp_election *el, const struct mcp_seen *s)
{
	if (el->last != MCP_DO_TAKE_LOCK) {
		if (el->attempt > el->max_attempts)
			return end(el, MCP_EL_FAILED, MCP_V_TOO_MANY);
		return emit(el, MCP_DO_TAKE_LOCK);
	}
	switch (s->lock) {
	case MCP_LOCK_MINE:
		el->state = MCP_EL_SPAWN;
		el->candidate = 0;
		el->deadline = s->now + el->timeout;
		return emit(el, MCP_DO_SPAWN);
	case MCP_LOCK_THEIRS:
		el->state = MCP_EL_WAIT;
		el->first_look = true;
		el->deadline = s->now + el->timeout + MCP_STARTER_GRACE;
		return emit(el, MCP_DO_READ);
	default:
		return end(el, MCP_EL_FAILED, MCP_V_LOCK_ERROR);
	}
}

/* the next candidate ports, or the end when there is none */
static enum mcp_el_action other_ports(struct mcp_election *el, enum mcp_el_verdict none)
{
	if (++el->candidate >= el->max_candidates)
		return end(el, MCP_EL_FAILED, none);
	el->state = MCP_EL_SPAWN;
	return emit(el, MCP_DO_SPAWN);
}

static enum mcp_el_action on_spawn(struct mcp_election *el, const struct mcp_seen *s)
{
	switch (s->spawn) {
	case MCP_SPAWNED:
		el->state = MCP_EL_STARTING;
		return emit(el, MCP_DO_WATCH);
	case MCP_SPAWN_BUSY:
		return other_ports(el, el->max_candidates == 1 ? MCP_V_PORTS_BUSY : MCP_V_NO_FREE_PORTS);
	case MCP_SPAWN_SUPERSEDED: /* nothing runs: the driver stopped it */
		return next_attempt(el, el->attempt);
	default:
		return end(el, MCP_EL_FAILED, MCP_V_SPAWN_ERROR);
	}
}

/* STARTING and ADOPT: a master step that is not ready yet */
static enum mcp_el_action on_watch(struct mcp_election *el, const struct mcp_seen *s)
{
	if (el->last == MCP_DO_STOP)
		return el->superseded ? next_attempt(el, el->attempt) : end(el, MCP_EL_FAILED, MCP_V_TIMEOUT);
	if (s->superseded) {
		el->superseded = true;
		return emit(el, MCP_DO_STOP);
	}
	if (s->child == MCP_CHILD_ENDED) {
		/* it lost one of the ports it was given to another process
		 * between their choice and its bind: other ports */
		if (el->state == MCP_EL_STARTING && s->lost_ports && el->candidate + 1 < el->max_candidates)
			return other_ports(el, MCP_V_EXITED);
		return end(el, MCP_EL_FAILED, MCP_V_EXITED);
	}
	if (s->probe == MCP_PROBE_READY) {
		el->watching = el->state;
		el->state = MCP_EL_CLAIM;
		return emit(el, MCP_DO_CLAIM);
	}
	if (s->now >= el->deadline)
		return emit(el, MCP_DO_STOP);
	return later(el, MCP_DO_WATCH);
}

static enum mcp_el_action on_claim(struct mcp_election *el, const struct mcp_seen *s)
{
	if (s->claimed)
		return end(el, MCP_EL_DONE, MCP_V_READY);
	el->state = el->watching;
	if (s->superseded) {
		el->superseded = true;
		return emit(el, MCP_DO_STOP);
	}
	if (s->now >= el->deadline)
		return emit(el, MCP_DO_STOP);
	return later(el, MCP_DO_WATCH);
}

/* the starter holding this attempt is gone: on its host, neither it nor
 * the master step's srun runs; elsewhere, its lock outlived its bound */
static bool starter_gone(const struct mcp_seen *s)
{
	if (s->starter_on_this_host)
		return !s->starter_alive && !s->step_alive;
	return s->lock_stale;
}

static enum mcp_el_action on_wait(struct mcp_election *el, const struct mcp_seen *s)
{
	bool first = el->first_look;
	enum mcri_phase phase = s->phase;

	if (el->last == MCP_DO_ADOPT) {
		if (s->adopt_won) {
			el->state = MCP_EL_ADOPT;
			el->deadline = s->now + el->timeout;
			return emit(el, MCP_DO_WATCH);
		}
		return later(el, MCP_DO_READ);
	}
	el->first_look = false;
	/* one directory, one job's pool: another job's that still runs is
	 * never joined nor rewritten (one that ended is an earlier run) */
	if (phase != MCRI_PHASE_NONE && s->other_job)
		return end(el, MCP_EL_FAILED, MCP_V_OTHER_JOB);
	/* a requeued job never adopts its earlier run's pool: an attempt
	 * after the one that state is about (until the holder of this
	 * attempt's lock writes its own state, which is this run's) */
	if (phase != MCRI_PHASE_NONE && s->other_run) {
		if (s->state_attempt >= el->attempt)
			return next_attempt(el, s->state_attempt);
		phase = MCRI_PHASE_NONE;
	}
	/* a later attempt is under way: join it */
	if (phase != MCRI_PHASE_NONE && s->state_attempt > el->attempt)
		return next_attempt(el, el->attempt);
	/* the state of an earlier attempt: this one has not written yet */
	if (s->state_attempt < el->attempt)
		phase = MCRI_PHASE_NONE;
	/* one pool per job directory: a second recipe never joins (nor
	 * rewrites the files of) the first one's */
	if ((phase == MCRI_PHASE_STARTING || phase == MCRI_PHASE_READY) && s->other_recipe)
		return end(el, MCP_EL_FAILED, MCP_V_OTHER_RECIPE);
	if (phase == MCRI_PHASE_FAILED) {
		/* a failure recorded before this srun looked (the recipe may be
		 * fixed by now) is tried again; one seen while waiting is ours */
		if (first)
			return next_attempt(el, el->attempt);
		return end(el, MCP_EL_FAILED, MCP_V_OTHER_FAILED);
	}
	if (phase == MCRI_PHASE_READY) {
		el->state = MCP_EL_JOIN;
		el->deadline = s->now + el->timeout;
		return emit(el, MCP_DO_PROBE);
	}
	if (phase == MCRI_PHASE_STARTING && s->launched && s->starter_on_this_host && !s->starter_alive &&
	    s->step_alive)
		return emit(el, MCP_DO_ADOPT); /* one srun here finishes its work */
	/* its master step was launched and its starter works on (on this
	 * host both run; elsewhere this srun saw its lock touched): this
	 * srun's step is created and launched while the master starts, its
	 * tasks wait for ready (a first wave's steps no longer all start
	 * after it) */
	if (phase == MCRI_PHASE_STARTING && s->launched && s->joinable && !s->lock_stale &&
	    (s->starter_on_this_host ? s->starter_alive && s->step_alive : s->lock_touched))
		return end(el, MCP_EL_DONE, MCP_V_STARTING);
	if (starter_gone(s))
		return next_attempt(el, el->attempt);
	if (s->now >= el->deadline)
		return end(el, MCP_EL_FAILED, MCP_V_WAIT_TIMEOUT);
	return later(el, MCP_DO_READ);
}

static enum mcp_el_action on_join(struct mcp_election *el, const struct mcp_seen *s)
{
	/* the pool is another job's that got this job's id: a new attempt */
	if (s->other_run)
		return next_attempt(el, el->attempt);
	switch (s->probe) {
	case MCP_PROBE_READY:
		return end(el, MCP_EL_DONE, MCP_V_READY);
	case MCP_PROBE_NO_ANSWER:
	case MCP_PROBE_RESTARTING:
		/* no answer is not a refusal: a blip on the way to it; nor is
		 * a master its step starts again */
		if (s->now < el->deadline)
			return later(el, MCP_DO_PROBE);
		return end(el, MCP_EL_FAILED,
			   s->probe == MCP_PROBE_RESTARTING ? MCP_V_RESTART_TIMEOUT : MCP_V_UNREACHABLE);
	default:
		return end(el, MCP_EL_FAILED, MCP_V_STOPPED);
	}
}

enum mcp_el_action mcp_election_next(struct mcp_election *el, const struct mcp_seen *seen)
{
	if (el->last == MCP_DO_SLEEP)
		return emit(el, el->resume);
	switch (el->state) {
	case MCP_EL_LOCK:
		return on_lock(el, seen);
	case MCP_EL_SPAWN:
		return on_spawn(el, seen);
	case MCP_EL_STARTING:
	case MCP_EL_ADOPT:
		return on_watch(el, seen);
	case MCP_EL_CLAIM:
		return on_claim(el, seen);
	case MCP_EL_WAIT:
		return on_wait(el, seen);
	case MCP_EL_JOIN:
		return on_join(el, seen);
	default:
		return emit(el, MCP_DO_FINISH);
	}
}
