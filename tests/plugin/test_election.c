/*
 * test_election.c - every transition of the master election (election.c),
 * driven with made-up observations: no clock, file, process or socket.
 */
#include <check.h>
#include <string.h>

#include "steps/election.h"

#define T 10.0 /* the readiness bound, seconds */

static struct mcp_election el;

/* a new election (3 attempts, `candidates` port triples) and its first action */
static enum mcp_el_action begin(int candidates)
{
	struct mcp_seen none = { 0 };

	mcp_election_init(&el, T, 3, candidates, 100.0);
	return mcp_election_next(&el, &none);
}

static enum mcp_el_action after(struct mcp_seen s)
{
	return mcp_election_next(&el, &s);
}

/* the sleep, and the action it repeats */
static enum mcp_el_action slept(void)
{
	struct mcp_seen none = { 0 };

	return mcp_election_next(&el, &none);
}

START_TEST(starter_spawns_claims_and_is_done)
{
	ck_assert_int_eq(begin(1), MCP_DO_TAKE_LOCK);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE }), MCP_DO_SPAWN);
	ck_assert_int_eq(el.state, MCP_EL_SPAWN);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWNED }), MCP_DO_WATCH);
	/* not ready yet: poll */
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .probe = MCP_PROBE_REFUSED }), MCP_DO_SLEEP);
	ck_assert_int_eq(slept(), MCP_DO_WATCH);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .probe = MCP_PROBE_READY }), MCP_DO_CLAIM);
	ck_assert_int_eq(el.state, MCP_EL_CLAIM);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .claimed = true }), MCP_DO_FINISH);
	ck_assert_int_eq(el.state, MCP_EL_DONE);
	ck_assert_int_eq(el.verdict, MCP_V_READY);
	ck_assert_int_eq(el.watching, MCP_EL_STARTING);
}
END_TEST

START_TEST(claim_not_seen_yet_watches_again)
{
	begin(1);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWNED });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .probe = MCP_PROBE_READY }), MCP_DO_CLAIM);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .claimed = false }), MCP_DO_SLEEP);
	ck_assert_int_eq(el.state, MCP_EL_STARTING);
	ck_assert_int_eq(slept(), MCP_DO_WATCH);
}
END_TEST

START_TEST(busy_ports_try_the_next_triple)
{
	begin(3);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWN_BUSY }), MCP_DO_SPAWN);
	ck_assert_int_eq(el.candidate, 1);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWN_BUSY }), MCP_DO_SPAWN);
	ck_assert_int_eq(el.candidate, 2);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWN_BUSY }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_NO_FREE_PORTS);
}
END_TEST

START_TEST(busy_fixed_ports_fail)
{
	begin(1);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWN_BUSY }), MCP_DO_FINISH);
	ck_assert_int_eq(el.state, MCP_EL_FAILED);
	ck_assert_int_eq(el.verdict, MCP_V_PORTS_BUSY);
}
END_TEST

/* a port taken between its choice and the master's bind */
START_TEST(lost_ports_respawn_on_the_next_triple)
{
	begin(2);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWNED });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .child = MCP_CHILD_ENDED, .lost_ports = true }),
			 MCP_DO_SPAWN);
	ck_assert_int_eq(el.candidate, 1);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .spawn = MCP_SPAWNED }), MCP_DO_WATCH);
	/* ... and once more: no triple left */
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .child = MCP_CHILD_ENDED, .lost_ports = true }),
			 MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_EXITED);
}
END_TEST

START_TEST(master_that_exits_fails)
{
	begin(3);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWNED });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .child = MCP_CHILD_ENDED }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_EXITED);
}
END_TEST

START_TEST(spawn_and_lock_errors_fail)
{
	begin(1);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_ERROR }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_LOCK_ERROR);
	begin(1);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWN_ERROR }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_SPAWN_ERROR);
}
END_TEST

START_TEST(not_ready_in_time_is_stopped)
{
	begin(1);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWNED });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 109.9, .probe = MCP_PROBE_NO_ANSWER }), MCP_DO_SLEEP);
	ck_assert_int_eq(slept(), MCP_DO_WATCH);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 110, .probe = MCP_PROBE_REFUSED }), MCP_DO_STOP);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 110 }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_TIMEOUT);
}
END_TEST

/* another srun judged this starter gone and took a newer attempt: the
 * starter stops what it launched and follows that attempt, at every
 * point where it would otherwise record its own (issue #17 review: two
 * starters split one job's pool) */
START_TEST(superseded_starter_follows_the_newer_attempt)
{
	/* before the master step is launched */
	begin(1);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWN_SUPERSEDED }), MCP_DO_TAKE_LOCK);
	ck_assert_int_eq(el.attempt, 2);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_THEIRS }), MCP_DO_READ);
	ck_assert_int_eq(el.state, MCP_EL_WAIT);
	/* while it starts */
	begin(1);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWNED });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .superseded = true }), MCP_DO_STOP);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101 }), MCP_DO_TAKE_LOCK);
	ck_assert_int_eq(el.attempt, 2);
	ck_assert(!el.superseded);
	/* when it answers, before ready is recorded */
	begin(1);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWNED });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .probe = MCP_PROBE_READY }), MCP_DO_CLAIM);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .superseded = true }), MCP_DO_STOP);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102 }), MCP_DO_TAKE_LOCK);
	ck_assert_int_eq(el.attempt, 2);
	/* a stop at the bound is still a timeout */
	begin(1);
	after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_MINE });
	after((struct mcp_seen){ .now = 100, .spawn = MCP_SPAWNED });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 110, .probe = MCP_PROBE_REFUSED }), MCP_DO_STOP);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 110 }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_TIMEOUT);
}
END_TEST

/* another srun holds the lock: wait for its verdict, then join */
static void waiting(void)
{
	begin(1);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100, .lock = MCP_LOCK_THEIRS }), MCP_DO_READ);
	ck_assert_int_eq(el.state, MCP_EL_WAIT);
}

START_TEST(joiner_waits_then_joins)
{
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101,
						  .phase = MCRI_PHASE_STARTING,
						  .state_attempt = 1,
						  .starter_on_this_host = true,
						  .starter_alive = true }),
			 MCP_DO_SLEEP);
	ck_assert_int_eq(slept(), MCP_DO_READ);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .phase = MCRI_PHASE_READY, .state_attempt = 1 }),
			 MCP_DO_PROBE);
	ck_assert_int_eq(el.state, MCP_EL_JOIN);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .probe = MCP_PROBE_READY }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_READY);
	ck_assert_int_eq(el.watching, MCP_EL_LOCK); /* joined: started nothing */
}
END_TEST

/* a requeued job: the state is its earlier run's, ready: a new attempt,
 * never a join of the pool that run had */
START_TEST(earlier_runs_pool_is_not_joined)
{
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101,
						  .phase = MCRI_PHASE_READY,
						  .state_attempt = 1,
						  .other_run = true }),
			 MCP_DO_TAKE_LOCK);
	ck_assert_int_eq(el.attempt, 2);
	/* attempt 2's lock is another srun's of this run, which has not written
	 * its state yet: wait for it, do not jump again */
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .lock = MCP_LOCK_THEIRS }), MCP_DO_READ);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101,
						  .phase = MCRI_PHASE_READY,
						  .state_attempt = 1,
						  .other_run = true,
						  .lock_stale = false }),
			 MCP_DO_SLEEP);
	ck_assert_int_eq(el.attempt, 2);
	ck_assert_int_eq(slept(), MCP_DO_READ);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .phase = MCRI_PHASE_READY, .state_attempt = 2 }),
			 MCP_DO_PROBE);
}
END_TEST

START_TEST(joiner_no_answer_is_asked_again_then_unreachable)
{
	waiting();
	after((struct mcp_seen){ .now = 101, .phase = MCRI_PHASE_READY, .state_attempt = 1 });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .probe = MCP_PROBE_NO_ANSWER }), MCP_DO_SLEEP);
	ck_assert_int_eq(slept(), MCP_DO_PROBE);
	/* a blip: it answers again */
	ck_assert_int_eq(after((struct mcp_seen){ .now = 105, .probe = MCP_PROBE_READY }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_READY);
	/* a cut: no answer until the bound */
	waiting();
	after((struct mcp_seen){ .now = 101, .phase = MCRI_PHASE_READY, .state_attempt = 1 });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 111, .probe = MCP_PROBE_NO_ANSWER }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_UNREACHABLE);
}
END_TEST

START_TEST(joiner_refused_means_stopped)
{
	waiting();
	after((struct mcp_seen){ .now = 101, .phase = MCRI_PHASE_READY, .state_attempt = 1 });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .probe = MCP_PROBE_REFUSED }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_STOPPED);
}
END_TEST

/* a master its step starts again (restart=) is waited for, within the
 * bound, never taken for one that stopped */
START_TEST(joiner_waits_for_a_restarting_master)
{
	waiting();
	after((struct mcp_seen){ .now = 101, .phase = MCRI_PHASE_READY, .state_attempt = 1 });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .probe = MCP_PROBE_RESTARTING }), MCP_DO_SLEEP);
	ck_assert_int_eq(slept(), MCP_DO_PROBE);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 106, .probe = MCP_PROBE_READY }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_READY);
	/* it does not come back within the bound */
	waiting();
	after((struct mcp_seen){ .now = 101, .phase = MCRI_PHASE_READY, .state_attempt = 1 });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 111, .probe = MCP_PROBE_RESTARTING }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_RESTART_TIMEOUT);
}
END_TEST

START_TEST(failure_before_we_looked_is_tried_again)
{
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .phase = MCRI_PHASE_FAILED, .state_attempt = 1 }),
			 MCP_DO_TAKE_LOCK);
	ck_assert_int_eq(el.attempt, 2);
	ck_assert_int_eq(el.state, MCP_EL_LOCK);
}
END_TEST

START_TEST(failure_seen_while_waiting_is_ours)
{
	waiting();
	after((struct mcp_seen){ .now = 101,
				 .phase = MCRI_PHASE_STARTING,
				 .state_attempt = 1,
				 .starter_on_this_host = true,
				 .starter_alive = true });
	slept();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .phase = MCRI_PHASE_FAILED, .state_attempt = 1 }),
			 MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_OTHER_FAILED);
}
END_TEST

START_TEST(starter_gone_is_taken_over)
{
	/* on this host: neither the starter nor its master step runs */
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .phase = MCRI_PHASE_NONE, .starter_on_this_host = true }),
			 MCP_DO_TAKE_LOCK);
	ck_assert_int_eq(el.attempt, 2);
	/* elsewhere: its lock outlived its bound */
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .lock_stale = true }), MCP_DO_TAKE_LOCK);
	/* elsewhere, not stale: wait */
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101 }), MCP_DO_SLEEP);
}
END_TEST

START_TEST(launched_master_of_a_dead_starter_is_adopted)
{
	struct mcp_seen s = { .now = 101,
			      .phase = MCRI_PHASE_STARTING,
			      .state_attempt = 1,
			      .launched = true,
			      .starter_on_this_host = true,
			      .starter_alive = false,
			      .step_alive = true };

	waiting();
	ck_assert_int_eq(after(s), MCP_DO_ADOPT);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .adopt_won = true }), MCP_DO_WATCH);
	ck_assert_int_eq(el.state, MCP_EL_ADOPT);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .probe = MCP_PROBE_READY }), MCP_DO_CLAIM);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .claimed = true }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_READY);
	ck_assert_int_eq(el.watching, MCP_EL_ADOPT);
	/* another srun here won the adoption: wait for its verdict */
	waiting();
	after(s);
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .adopt_won = false }), MCP_DO_SLEEP);
	ck_assert_int_eq(slept(), MCP_DO_READ);
	ck_assert_int_eq(el.state, MCP_EL_WAIT);
}
END_TEST

/* a joinable srun (not an HA pool) leaves the wait once the master step
 * is launched and its starter works on: its tasks wait for ready */
START_TEST(launched_master_is_joined_while_it_starts)
{
	struct mcp_seen s = { .now = 101,
			      .phase = MCRI_PHASE_STARTING,
			      .state_attempt = 1,
			      .launched = true,
			      .joinable = true,
			      .starter_on_this_host = true,
			      .starter_alive = true,
			      .step_alive = true };

	waiting();
	ck_assert_int_eq(after(s), MCP_DO_FINISH);
	ck_assert_int_eq(el.state, MCP_EL_DONE);
	ck_assert_int_eq(el.verdict, MCP_V_STARTING);
	ck_assert_int_eq(el.watching, MCP_EL_LOCK); /* started nothing */
	/* a starter on another host: joined once this srun saw it touch its
	 * lock (a lock never touched may be a dead starter's: not joined) */
	waiting();
	s.starter_on_this_host = s.starter_alive = s.step_alive = false;
	ck_assert_int_eq(after(s), MCP_DO_SLEEP);
	ck_assert_int_eq(slept(), MCP_DO_READ);
	s.lock_touched = true;
	ck_assert_int_eq(after(s), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_STARTING);
	/* here again: not joinable (an HA pool), or not launched yet: wait */
	s = (struct mcp_seen){ .now = 101,
			       .phase = MCRI_PHASE_STARTING,
			       .state_attempt = 1,
			       .starter_on_this_host = true,
			       .starter_alive = true,
			       .step_alive = true };
	waiting();
	s.launched = true;
	ck_assert_int_eq(after(s), MCP_DO_SLEEP);
	waiting();
	s.launched = false;
	s.joinable = true;
	ck_assert_int_eq(after(s), MCP_DO_SLEEP);
	/* the master step's srun has ended here: the starter's verdict comes */
	waiting();
	s.launched = true;
	s.step_alive = false;
	ck_assert_int_eq(after(s), MCP_DO_SLEEP);
	/* a starter here that died: adopted, never joined */
	waiting();
	s.step_alive = true;
	s.starter_alive = false;
	ck_assert_int_eq(after(s), MCP_DO_ADOPT);
	/* a starter elsewhere whose lock went stale: taken over */
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101,
						  .phase = MCRI_PHASE_STARTING,
						  .state_attempt = 1,
						  .launched = true,
						  .joinable = true,
						  .lock_touched = true,
						  .lock_stale = true }),
			 MCP_DO_TAKE_LOCK);
	ck_assert_int_eq(el.attempt, 2);
	/* another recipe's pool is never joined, starting or not */
	waiting();
	s.launched = s.starter_alive = s.other_recipe = true;
	ck_assert_int_eq(after(s), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_OTHER_RECIPE);
}
END_TEST

START_TEST(adopted_master_that_ends_fails)
{
	waiting();
	after((struct mcp_seen){ .now = 101,
				 .phase = MCRI_PHASE_STARTING,
				 .state_attempt = 1,
				 .launched = true,
				 .starter_on_this_host = true,
				 .step_alive = true });
	after((struct mcp_seen){ .now = 101, .adopt_won = true });
	/* an adopted master step that loses its ports is not respawned */
	ck_assert_int_eq(after((struct mcp_seen){ .now = 102, .child = MCP_CHILD_ENDED, .lost_ports = true }),
			 MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_EXITED);
}
END_TEST

START_TEST(newer_attempt_is_joined)
{
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .phase = MCRI_PHASE_STARTING, .state_attempt = 3 }),
			 MCP_DO_TAKE_LOCK);
	ck_assert_int_eq(el.attempt, 2);
	/* an older attempt's state means ours is not written yet */
	waiting();
	el.attempt = 2;
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .phase = MCRI_PHASE_FAILED, .state_attempt = 1 }),
			 MCP_DO_SLEEP);
}
END_TEST

/* a directory holding the pool of another job that still runs: refused,
 * whatever the state says */
START_TEST(other_jobs_pool_is_refused)
{
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100,
						  .phase = MCRI_PHASE_READY,
						  .state_attempt = 1,
						  .other_job = true }),
			 MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_OTHER_JOB);
}
END_TEST

START_TEST(other_recipe_is_refused)
{
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101,
						  .phase = MCRI_PHASE_READY,
						  .state_attempt = 1,
						  .other_recipe = true }),
			 MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_OTHER_RECIPE);
	/* a failed attempt of another recipe is no pool: try again */
	waiting();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101,
						  .phase = MCRI_PHASE_FAILED,
						  .state_attempt = 1,
						  .other_recipe = true }),
			 MCP_DO_TAKE_LOCK);
}
END_TEST

START_TEST(waiting_is_bounded)
{
	waiting();
	/* the starter's bound plus its grace */
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100 + T + MCP_STARTER_GRACE - 0.1 }), MCP_DO_SLEEP);
	slept();
	ck_assert_int_eq(after((struct mcp_seen){ .now = 100 + T + MCP_STARTER_GRACE }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_WAIT_TIMEOUT);
}
END_TEST

START_TEST(attempts_are_bounded)
{
	waiting();
	after((struct mcp_seen){ .now = 101, .lock_stale = true }); /* attempt 2 */
	after((struct mcp_seen){ .now = 101, .lock = MCP_LOCK_THEIRS });
	after((struct mcp_seen){ .now = 101, .lock_stale = true }); /* attempt 3 */
	after((struct mcp_seen){ .now = 101, .lock = MCP_LOCK_THEIRS });
	ck_assert_int_eq(after((struct mcp_seen){ .now = 101, .lock_stale = true }), MCP_DO_FINISH);
	ck_assert_int_eq(el.verdict, MCP_V_TOO_MANY);
}
END_TEST

Suite *election_suite(void)
{
	Suite *s = suite_create("election");
	TCase *tc = tcase_create("transitions");

	tcase_add_test(tc, starter_spawns_claims_and_is_done);
	tcase_add_test(tc, claim_not_seen_yet_watches_again);
	tcase_add_test(tc, superseded_starter_follows_the_newer_attempt);
	tcase_add_test(tc, busy_ports_try_the_next_triple);
	tcase_add_test(tc, busy_fixed_ports_fail);
	tcase_add_test(tc, lost_ports_respawn_on_the_next_triple);
	tcase_add_test(tc, master_that_exits_fails);
	tcase_add_test(tc, spawn_and_lock_errors_fail);
	tcase_add_test(tc, not_ready_in_time_is_stopped);
	tcase_add_test(tc, joiner_waits_then_joins);
	tcase_add_test(tc, launched_master_is_joined_while_it_starts);
	tcase_add_test(tc, earlier_runs_pool_is_not_joined);
	tcase_add_test(tc, joiner_no_answer_is_asked_again_then_unreachable);
	tcase_add_test(tc, joiner_refused_means_stopped);
	tcase_add_test(tc, joiner_waits_for_a_restarting_master);
	tcase_add_test(tc, failure_before_we_looked_is_tried_again);
	tcase_add_test(tc, failure_seen_while_waiting_is_ours);
	tcase_add_test(tc, starter_gone_is_taken_over);
	tcase_add_test(tc, launched_master_of_a_dead_starter_is_adopted);
	tcase_add_test(tc, adopted_master_that_ends_fails);
	tcase_add_test(tc, newer_attempt_is_joined);
	tcase_add_test(tc, other_recipe_is_refused);
	tcase_add_test(tc, other_jobs_pool_is_refused);
	tcase_add_test(tc, waiting_is_bounded);
	tcase_add_test(tc, attempts_are_bounded);
	suite_add_tcase(s, tc);
	return s;
}
