/*
 * fuzz_records.c - libFuzzer target (make fuzz): the records of the job's
 * directory, which a user who could write it (a damaged file, or a job
 * directory shared by mistake) may have filled with anything. The first
 * byte picks the record, the rest is its file, written into a job
 * directory of the target's own and read by the one reader the plugin and
 * status use (runtime/jobdir):
 *   '0' mooncake_master.json (the state), '1' mooncake_master.proof.json,
 *   '2' mooncake_master.1.lock, '3' a worker record (workers/).
 * Besides the sanitizers' findings it aborts when a promise breaks:
 *  - what a reader gives is in range (a known phase or verdict, ports
 *    1-65535, NUL-terminated strings);
 *  - a state or proof that reads back is written again as it was read
 *    (a writer that refuses what its own reader gave is a job that can
 *    never record its pool);
 *  - every message starts "mooncake: ".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobdir/jobdir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FAIL(...) (fprintf(stderr, __VA_ARGS__), abort())

static struct mcri_jobdir dir = { .fd = -1 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	struct mcr_error err;

	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s/mck-fuzz-records.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(path) || mcri_jobdir_open(&dir, path, getuid(), false, &err))
		FAIL("cannot make the target's job directory %s\n", path);
	return 0;
}

static void check_message(const struct mcr_error *err)
{
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	mcr_error_format(err, msg, sizeof(msg));
	if (strncmp(msg, "mooncake: ", 10) != 0)
		FAIL("a message without the prefix: %s\n", msg);
}

static void check_str(const char *s, size_t size, const char *what)
{
	if (!memchr(s, '\0', size))
		FAIL("%s is not NUL-terminated\n", what);
}

static void check_ports(const struct mcr_ports *p, int lowest)
{
	const int v[3] = { p->rpc, p->metadata, p->metrics };

	for (int i = 0; i < 3; i++)
		if (v[i] < lowest || v[i] > 65535)
			FAIL("port %d read\n", v[i]);
}

static void state(void)
{
	struct mcri_state st, again;
	struct mcr_error err;

	if (mcri_state_read(&dir, &st, &err)) {
		check_message(&err);
		return;
	}
	if (st.phase < MCRI_PHASE_STARTING || st.phase > MCRI_PHASE_FAILED)
		FAIL("phase %d read\n", (int)st.phase);
	check_ports(&st.ports, 1);
	check_str(st.job_id, sizeof(st.job_id), "job_id");
	check_str(st.infra_node, sizeof(st.infra_node), "infra_node");
	check_str(st.infra_addr, sizeof(st.infra_addr), "infra_addr");
	check_str(st.recipe, sizeof(st.recipe), "recipe");
	check_str(st.message, sizeof(st.message), "message");
	check_str(st.starter_host, sizeof(st.starter_host), "starter_host");
	if (mcri_state_write(&dir, &st, &err)) {
		check_message(&err);
		FAIL("the state read cannot be written again: %s\n", err.text);
	}
	if (mcri_state_read(&dir, &again, &err) || memcmp(&st, &again, sizeof(st)) != 0)
		FAIL("the state written again reads otherwise\n");
}

static void proof(void)
{
	struct mcri_proof p, again;
	struct mcr_error err;

	if (mcri_proof_read(&dir, &p, &err)) {
		check_message(&err);
		return;
	}
	if (p.verdict > MCRI_PROOF_FOREIGN)
		FAIL("verdict %d read\n", (int)p.verdict);
	check_ports(&p.ports, 0);
	if (mcri_proof_write(&dir, &p, &err))
		FAIL("the proof read cannot be written again: %s\n", err.text);
	if (mcri_proof_read(&dir, &again, &err) || memcmp(&p, &again, sizeof(p)) != 0)
		FAIL("the proof written again reads otherwise\n");
}

static void lock(void)
{
	struct mcri_lock l;

	mcri_lock_read(&dir, 1, &l);
	check_str(l.host, sizeof(l.host), "the lock's host");
	if (l.pid < 0 || (l.pid == 0 && l.host[0]))
		FAIL("lock pid %ld host '%s' read\n", l.pid, l.host);
}

static void workers(void)
{
	struct mcri_worker *w = NULL;
	struct mcr_error err;
	size_t n = 0;

	if (mcri_workers_read(&dir, 4, &w, &n, &err)) {
		check_message(&err);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		check_str(w[i].node, sizeof(w[i].node), "node");
		check_str(w[i].role, sizeof(w[i].role), "role");
		check_str(w[i].address, sizeof(w[i].address), "address");
	}
	free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { MCRI_STATE_FILE, MCRI_PROOF_FILE, "mooncake_master.1.lock",
					     "n1.1.0.0.json" };
	struct mcri_jobdir sub = { .fd = -1 };
	const struct mcri_jobdir *at = &dir;
	struct mcr_error err;
	unsigned kind;

	if (size < 1)
		return 0;
	kind = (unsigned)(data[0] - '0') % 4;
	if (kind == 3) {
		if (mcri_jobdir_sub(&dir, MCRI_WORKERS_DIR, true, &sub, &err))
			FAIL("cannot make workers/: %s\n", err.text);
		at = &sub;
	}
	if (mcri_jobdir_write(at, names[kind], (const char *)data + 1, size - 1, false, &err))
		FAIL("cannot write %s: %s\n", names[kind], err.text);
	switch (kind) {
	case 0:
		state();
		break;
	case 1:
		proof();
		break;
	case 2:
		lock();
		break;
	default:
		workers();
		break;
	}
	mcri_jobdir_close(&sub);
	return 0;
}
