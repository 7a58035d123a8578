/*
 * dlopen_plugin.c - load spank_mooncake.so the way Slurm does (after
 * libslurmfull, whose exports are what slurmd, srun and slurmstepd
 * provide) and check the metadata the plugin loader reads.
 *   dlopen_plugin PLUGIN LIBSLURMFULL
 * With -z now every undefined symbol must resolve here, so this also
 * proves that Slurm or the plugin's own libraries provide all of them.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm_version.h>

int main(int argc, char **argv)
{
	void *slurm, *plugin;
	const char *name, *type;
	const uint32_t *version;
	int rc = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PLUGIN LIBSLURMFULL\n", argv[0]);
		return 2;
	}
	slurm = dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL);
	if (!slurm) {
		fprintf(stderr, "FAIL: dlopen %s: %s\n", argv[2], dlerror());
		return 1;
	}
	plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!plugin) {
		fprintf(stderr, "FAIL: dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}
	name = dlsym(plugin, "plugin_name");
	type = dlsym(plugin, "plugin_type");
	version = dlsym(plugin, "plugin_version");
	if (!name || strcmp(name, "mooncake") != 0) {
		fprintf(stderr, "FAIL: plugin_name is %s, want mooncake\n", name ? name : "missing");
		rc = 1;
	}
	if (!type || strcmp(type, "spank") != 0) {
		fprintf(stderr, "FAIL: plugin_type is %s, want spank\n", type ? type : "missing");
		rc = 1;
	}
	/* Slurm's loader compares major.minor (mask 0xffff00) */
	if (!version || (*version & 0xffff00) != (SLURM_VERSION_NUMBER & 0xffff00)) {
		fprintf(stderr, "FAIL: plugin_version 0x%x, Slurm headers 0x%x\n", version ? *version : 0,
			SLURM_VERSION_NUMBER);
		rc = 1;
	}
	for (const char *const *s = (const char *const[]){ "slurm_spank_init", "slurm_spank_init_post_opt",
							   "slurm_spank_local_user_init", "slurm_spank_task_init",
							   "slurm_spank_exit", NULL };
	     *s; s++) {
		if (!dlsym(plugin, *s)) {
			fprintf(stderr, "FAIL: %s is not exported\n", *s);
			rc = 1;
		}
	}
	/* Slurm's plugin loader calls symbols named init/fini if present */
	if (dlsym(plugin, "init") || dlsym(plugin, "fini")) {
		fprintf(stderr, "FAIL: the plugin exports init or fini\n");
		rc = 1;
	}
	if (rc == 0)
		printf("plugin_name=%s plugin_type=%s plugin_version=0x%x (headers %d.%d)\n", name, type, *version,
		       SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
	dlclose(plugin);
	dlclose(slurm);
	return rc;
}
