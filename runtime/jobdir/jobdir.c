/*
 * jobdir.c - the job's directory, opened once and used only through its
 * descriptor (jobdir.h): owner and mode checked, no link followed, no FIFO
 * waited on, every read bounded, every write atomic.
 */
#include <errno.h>
#include <pwd.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "jobdir/jobdir.h"
#include "sys/sys.h"

#define FILE_MODE 0600

/* the directory open at fd is the job's: owned by uid, written by nobody else */
static int check_dir(int fd, const char *path, uid_t uid, struct mcr_error *err)
{
	char owner[128], user[128];
	struct stat st;

	if (fstat(fd, &st) != 0)
		return mcri_error_set(err, MCR_EIO, "cannot use the job's directory %s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return mcri_error_set(err, MCR_ESTATE,
				      "%s is not a directory; remove it or choose another job directory", path);
	if (st.st_uid != uid) {
		mcri_who(st.st_uid, owner, sizeof(owner));
		mcri_who(uid, user, sizeof(user));
		return mcri_error_set(
			err, MCR_ESTATE,
			"the job's directory %s belongs to %s, not to the job's user, %s: another user could plant or change the pool's files there; use a directory of your own (output.log_dir in the recipe, or job_dir= with {user} in plugstack.conf)",
			path, owner, user);
	}
	if (mcri_others_write(&st, uid))
		return mcri_error_set(
			err, MCR_ESTATE,
			"the job's directory %s may be written by %s (mode %04o): another user could plant or change the pool's files there; run chmod go-w %s, or use a directory of your own",
			path, (st.st_mode & S_IWOTH) ? "every user" : "its group", (unsigned)(st.st_mode & 07777),
			path);
	return 0;
}

static int open_checked(int at, const char *name, const char *path, uid_t uid, struct mcri_jobdir *d,
			struct mcr_error *err)
{
	d->fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0)
		return mcri_error_set(
			err, errno == ENOENT ? MCR_ESTATE : MCR_EIO,
			errno == ELOOP || errno == ENOTDIR
				? "the job's directory %s is a link or not a directory: %s; use a real directory"
				: "cannot open the job's directory %s: %s",
			path, strerror(errno));
	if (check_dir(d->fd, path, uid, err)) {
		mcri_jobdir_close(d);
		return -1;
	}
	return 0;
}

/* A parent of the job's directory, open at fd (O_PATH) and named `name`:
 * only root or the job's user may change it (a directory others may write
 * is fine only with the sticky bit, as /tmp), or another user could move
 * the job's directory away and put one of theirs in its place. In a
 * container's user namespace (pyxis's, enroot's), an owner it does not map
 * (shown as the overflow user) passes: srun checked the directory's
 * parents on the host, with their owners, before the step. */
static int check_parent(int fd, const char *name, const char *path, uid_t uid, struct mcr_error *err)
{
	char owner[128];
	struct stat st;

	if (fstat(fd, &st) != 0)
		return mcri_error_set(err, MCR_EIO, "cannot use %s, a parent of the job's directory %s: %s", name, path,
				      strerror(errno));
	if (st.st_uid != 0 && st.st_uid != uid && !mcri_unmapped_owner(st.st_uid)) {
		mcri_who(st.st_uid, owner, sizeof(owner));
		return mcri_error_set(
			err, MCR_ESTATE,
			"the job's directory %s is inside %s, which belongs to %s: that user could move it and put a directory of theirs in its place; use a directory whose every parent only you and root can change (output.log_dir in the recipe, or job_dir= in plugstack.conf)",
			path, name, owner);
	}
	if (!mcri_parent_trusted(&st, uid)) {
		char fix[PATH_MAX + 64];

		/* only its owner can change its mode */
		if (st.st_uid == uid)
			snprintf(fix, sizeof(fix), "run chmod go-w %s (or chmod +t, as /tmp), or ", name);
		else
			snprintf(fix, sizeof(fix), "ask its owner, root, to run chmod +t %s, or ", name);
		return mcri_error_set(
			err, MCR_ESTATE,
			"the job's directory %s is inside %s, which %s may write (mode %04o, without the sticky bit): another user could move it and put a directory of theirs in its place; %suse a directory whose every parent only you and root can change (output.log_dir in the recipe, e.g. a directory in your home)",
			path, name, (st.st_mode & S_IWOTH) ? "every user" : "its group", (unsigned)(st.st_mode & 07777),
			fix);
	}
	return 0;
}

/* check_parent for the walk: the job's directory's parents */
struct walk {
	const char *real;
	uid_t uid;
	struct mcr_error *err;
};

static int walk_check(int fd, const char *dir, void *arg)
{
	const struct walk *w = arg;

	return check_parent(fd, dir, w->real, w->uid, w->err);
}

/* Open `real` (an absolute path without links, "." or "..") from / one
 * level at a time, refusing links and every parent check_parent refuses,
 * then the directory itself as open_checked does. */
static int open_walked(const char *real, uid_t uid, struct mcri_jobdir *d, struct mcr_error *err)
{
	struct walk w = { real, uid, err };
	char at[PATH_MAX];
	const char *leaf;
	int fd = mcri_walk(real, walk_check, &w, at, sizeof(at), &leaf), rc;

	if (fd == -1 && strcmp(at, "/") == 0)
		return mcri_error_set(err, MCR_EIO, "cannot open /: %s", strerror(errno));
	if (fd == -1)
		return mcri_error_set(err, errno == ENOENT ? MCR_ESTATE : MCR_EIO,
				      "cannot open %s, a parent of the job's directory %s: %s%s", at, real,
				      strerror(errno), errno == ELOOP ? " (it changed into a link)" : "");
	if (fd < 0)
		return -1;
	rc = open_checked(fd, leaf, real, uid, d, err);
	close(fd);
	return rc;
}

/* check_parent on the directory `name` (an absolute path), opened O_PATH */
static int check_parent_at(const char *name, const char *path, uid_t uid, struct mcr_error *err)
{
	int fd = open(name, O_PATH | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return 0; /* the walk after creating says what is wrong */
	rc = check_parent(fd, name, path, uid, err);
	close(fd);
	return rc;
}

/* Before anything is created for `path`: its deepest parent that exists,
 * and each of that one's own parents, pass check_parent (a refused job
 * directory leaves not even an empty directory behind). */
static int check_existing_parents(const char *path, uid_t uid, struct mcr_error *err)
{
	char probe[PATH_MAX], real[PATH_MAX], *cut;
	size_t n;

	snprintf(probe, sizeof(probe), "%s", path);
	do {
		if (!(cut = strrchr(probe, '/')))
			return 0;
		cut[cut == probe ? 1 : 0] = '\0';
	} while (!realpath(probe, real) && strcmp(probe, "/") != 0);
	if (!realpath(probe, real))
		return 0;
	if (check_parent_at("/", path, uid, err))
		return -1;
	n = strlen(real);
	for (size_t i = 1; i <= n; i++) {
		if (i < n && real[i] != '/')
			continue;
		real[i] = '\0';
		if (check_parent_at(real, path, uid, err))
			return -1;
		if (i < n)
			real[i] = '/';
	}
	return 0;
}

int mcri_jobdir_open(struct mcri_jobdir *d, const char *path, uid_t uid, bool create, struct mcr_error *err)
{
	char *parent, real[PATH_MAX];
	struct stat st;
	int rc = 0;

	d->fd = -1;
	if (snprintf(d->path, sizeof(d->path), "%s", path) >= (int)sizeof(d->path))
		return mcri_error_set(err, MCR_EINVAL, "the job's directory %.200s... is too long", path);
	if (create) {
		/* the parents as any directory, the job's own 0700: once the
		 * parents that exist are safe */
		if (check_existing_parents(path, uid, err))
			return -1;
		if (!(parent = strdup(path)))
			return mcri_error_nomem(err);
		if (strrchr(parent, '/') && strrchr(parent, '/') != parent) {
			*strrchr(parent, '/') = '\0';
			rc = mcri_mkdir_p(parent, 0755, err);
		}
		free(parent);
		if (rc)
			return -1;
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			return mcri_error_set(err, MCR_EIO, "cannot create the directory %s: %s", path,
					      strerror(errno));
	}
	/* the directory itself is never a link; its parents are taken as the
	 * system resolves them, and then each checked, from / down: the path
	 * the tasks get is that one, with no link left in it to redirect */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return open_checked(AT_FDCWD, path, d->path, uid, d, err); /* says it is a link */
	if (!realpath(path, real))
		return mcri_error_set(err, errno == ENOENT ? MCR_ESTATE : MCR_EIO,
				      "cannot open the job's directory %s: %s", path, strerror(errno));
	if (snprintf(d->path, sizeof(d->path), "%s", real) >= (int)sizeof(d->path))
		return mcri_error_set(err, MCR_EINVAL, "the job's directory %.200s... is too long", real);
	if (strcmp(real, "/") == 0)
		return open_checked(AT_FDCWD, real, d->path, uid, d, err);
	return open_walked(real, uid, d, err);
}

int mcri_jobdir_sub(const struct mcri_jobdir *d, const char *name, bool create, struct mcri_jobdir *sub,
		    struct mcr_error *err)
{
	struct stat st;

	sub->fd = -1;
	if (snprintf(sub->path, sizeof(sub->path), "%.*s/%s", (int)(sizeof(sub->path) - 2 - strlen(name)), d->path,
		     name) >= (int)sizeof(sub->path))
		return mcri_error_set(err, MCR_EINVAL, "%s/%s is too long a path", d->path, name);
	if (fstat(d->fd, &st) != 0)
		return mcri_error_set(err, MCR_EIO, "cannot use %s: %s", d->path, strerror(errno));
	if (create && mkdirat(d->fd, name, 0700) != 0 && errno != EEXIST)
		return mcri_error_set(err, MCR_EIO, "cannot create the directory %s: %s", sub->path, strerror(errno));
	return open_checked(d->fd, name, sub->path, st.st_uid, sub, err);
}

void mcri_jobdir_close(struct mcri_jobdir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

/* `name` opened as a regular file of the directory (no link, no FIFO) */
static int open_file(const struct mcri_jobdir *d, const char *name, int flags, struct stat *st, struct mcr_error *err)
{
	int fd = openat(d->fd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, FILE_MODE);

	if (fd < 0)
		return mcri_error_set(err, errno == ENOENT ? MCR_ESTATE : MCR_EIO, "cannot open %s/%s: %s%s", d->path,
				      name, strerror(errno),
				      errno == ELOOP ? " (a link: the job's files are never followed through one)"
						     : "");
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return mcri_error_set(
			err, MCR_EIO,
			"%s/%s is not a regular file (a FIFO, a device or a directory): the pool's files are regular files; remove it",
			d->path, name);
	}
	return fd;
}

int mcri_jobdir_read(const struct mcri_jobdir *d, const char *name, size_t max, char **text, size_t *len,
		     struct mcr_error *err)
{
	return mcri_jobdir_read_stat(d, name, max, text, len, NULL, err);
}

/* An open file description's write lock over the whole file (OFD locks:
 * closing another descriptor of the file in this process keeps it; on NFS
 * the server keeps it) */
static struct flock whole_file(short type)
{
	struct flock l;

	memset(&l, 0, sizeof(l));
	l.l_type = type;
	l.l_whence = SEEK_SET;
	return l;
}

/* the file system keeps no locks (or none we may take): nothing says */
static bool no_locks(int e)
{
	return e == EINVAL || e == ENOLCK || e == EOPNOTSUPP || e == ENOSYS || e == EBADF;
}

/* the mount options of the file system of device `dev` (major:minor, as
 * /proc/self/mountinfo lists it), its per-mount and its super options
 * joined by a comma, into buf; false when it is not listed */
static bool mount_options(dev_t dev, char *buf, size_t size)
{
	char line[4096], want[32];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool found = false;

	if (!f)
		return false;
	snprintf(want, sizeof(want), " %u:%u ", major(dev), minor(dev));
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, want), *opts, *sep, *super;

		if (!p || !(opts = strchr(p + strlen(want), ' ')) || !(opts = strchr(opts + 1, ' ')))
			continue;
		/* "... MOUNT_POINT OPTIONS [TAGS...] - TYPE SOURCE SUPER_OPTIONS" */
		opts++;
		sep = strstr(opts, " - ");
		super = sep ? strrchr(sep, ' ') : NULL;
		snprintf(buf, size, "%.*s,%s", (int)strcspn(opts, " "), opts, super ? super + 1 : "");
		buf[strcspn(buf, "\n")] = '\0';
		found = true;
	}
	fclose(f);
	return found;
}

bool mcri_jobdir_locks_shared(const struct mcri_jobdir *d)
{
	struct statfs fs;
	struct stat st;
	char opts[2048];

	if (fstatfs(d->fd, &fs) != 0 || fstat(d->fd, &st) != 0)
		return false;
	switch ((unsigned long)fs.f_type) {
	case 0xEF53:         /* ext2, ext3, ext4 */
	case 0x58465342:     /* XFS */
	case 0x9123683E:     /* btrfs */
	case 0x01021994:     /* tmpfs */
	case 0x794c7630:     /* overlayfs */
	case 0x2FC12FC1:     /* ZFS */
		return true; /* one host's: its kernel sees every lock */
	case 0x6969:         /* NFS: the server's locks, unless mounted to keep them local */
		if (!mount_options(st.st_dev, opts, sizeof(opts)))
			return false;
		for (char *save = NULL, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			if (!strcmp(o, "nolock") || !strcmp(o, "local_lock=posix") || !strcmp(o, "local_lock=all"))
				return false;
		return true;
	default:
		/* Lustre (flock, localflock), GPFS, FUSE and the rest: whether
		 * another host sees a lock is not told here */
		return false;
	}
}

int mcri_jobdir_holder(int fd)
{
	struct flock l = whole_file(F_WRLCK);

	if (fcntl(fd, F_OFD_GETLK, &l) != 0)
		return -1;
	return l.l_type != F_UNLCK;
}

int mcri_jobdir_hold(const struct mcri_jobdir *d, const char *name)
{
	struct flock l = whole_file(F_WRLCK);
	struct mcr_error ignored;
	struct stat st;
	int fd = open_file(d, name, O_WRONLY, &st, &ignored);

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_OFD_SETLK, &l) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int mcri_jobdir_read_stat(const struct mcri_jobdir *d, const char *name, size_t max, char **text, size_t *len,
			  struct stat *opened, struct mcr_error *err)
{
	return mcri_jobdir_read_held(d, name, max, text, len, opened, NULL, err);
}

int mcri_jobdir_read_held(const struct mcri_jobdir *d, const char *name, size_t max, char **text, size_t *len,
			  struct stat *opened, int *holder, struct mcr_error *err)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd = open_file(d, name, O_RDONLY, &st, err);

	*text = NULL;
	if (fd < 0)
		return -1;
	if (opened)
		*opened = st;
	if (holder)
		*holder = mcri_jobdir_holder(fd);
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return mcri_error_set(err, MCR_EIO,
				      "%s/%s is %lld bytes, more than the %zu a record of the pool may hold", d->path,
				      name, (long long)st.st_size, max);
	}
	if (!(buf = malloc(max + 1))) {
		close(fd);
		return mcri_error_nomem(err);
	}
	/* the size may change while it is read: never more than max */
	while (got <= max) {
		ssize_t n = read(fd, buf + got, max + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			mcri_error_set(err, MCR_EIO, "cannot read %s/%s: %s", d->path, name, strerror(errno));
			close(fd);
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got > max) {
		free(buf);
		return mcri_error_set(err, MCR_EIO, "%s/%s grew past the %zu bytes a record of the pool may hold",
				      d->path, name, max);
	}
	buf[got] = '\0';
	*text = buf;
	if (len)
		*len = got;
	return 0;
}

int mcri_jobdir_write(const struct mcri_jobdir *d, const char *name, const char *text, size_t len, bool durable,
		      struct mcr_error *err)
{
	return mcri_write_file_at(d->fd, d->path, name, text, len, durable, FILE_MODE, err);
}

int mcri_jobdir_write_files(const struct mcri_jobdir *d, const struct mcr_file_list *files, struct mcr_error *err)
{
	return mcri_write_files_at(d->fd, d->path, files, FILE_MODE, err);
}

int mcri_jobdir_create(const struct mcri_jobdir *d, const char *name, const char *text, struct mcr_error *err)
{
	return mcri_jobdir_create_held(d, name, text, NULL, err);
}

int mcri_jobdir_create_held(const struct mcri_jobdir *d, const char *name, const char *text, int *held,
			    struct mcr_error *err)
{
	struct flock lock = whole_file(F_WRLCK);
	char host[256] = "", *tmp;
	size_t len = strlen(text);
	bool locked = false;
	int rc = -1, fd;

	if (held)
		*held = -1;
	/* the common case, another srun's lock: nothing to write (and sync) */
	if (mcri_jobdir_exists(d, name))
		return 0;
	/* sruns on several hosts share the directory: a name of this process */
	gethostname(host, sizeof(host) - 1);
	if (!(tmp = mcri_asprintf(".%s.new.%s.%ld", name, host, (long)getpid())))
		return mcri_error_nomem(err);
	unlinkat(d->fd, tmp, 0); /* ours, from a process of this pid that died */
	fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, FILE_MODE);
	/* held: locked before it has its name, so that the file is never seen
	 * without its holder's lock while the holder lives */
	if (fd >= 0 && held && !(locked = fcntl(fd, F_OFD_SETLK, &lock) == 0) && !no_locks(errno)) {
		mcri_error_set(err, MCR_EIO, "cannot lock %s/%s: %s", d->path, tmp, strerror(errno));
	} else if (fd < 0 || write(fd, text, len) != (ssize_t)len || fsync(fd) != 0) {
		mcri_error_set(
			err, MCR_EIO,
			"cannot create %s/%s: %s; the job's directory must be writable by you (and its file system not full)",
			d->path, name, strerror(errno));
	} else if (linkat(d->fd, tmp, d->fd, name, 0) == 0) {
		rc = 1;
	} else if (errno == EEXIST) {
		rc = 0;
	} else {
		mcri_error_set(err, MCR_EIO, "cannot create %s/%s: %s", d->path, name, strerror(errno));
	}
	if (rc == 1 && locked) {
		*held = fd; /* the caller's, and with it the lock */
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	unlinkat(d->fd, tmp, 0);
	free(tmp);
	return rc;
}

int mcri_jobdir_append(const struct mcri_jobdir *d, const char *name, bool truncate, struct mcr_error *err)
{
	struct stat st;
	int fd = open_file(d, name, O_WRONLY | O_CREAT | O_APPEND, &st, err);

	/* emptied only once it is known to be a regular file of ours */
	if (fd >= 0 && truncate && ftruncate(fd, 0) != 0) {
		mcri_error_set(err, MCR_EIO, "cannot empty %s/%s: %s", d->path, name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

#define SETTLE_TRIES 10    /* looks at a file that differs, */
#define SETTLE_PAUSE_MS 20 /* this far apart */

int mcri_jobdir_settle(const struct mcri_jobdir *d, const struct mcr_file_list *files, bool owner, size_t *differs,
		       size_t *written, struct mcr_error *err)
{
	const struct timespec pause = { 0, SETTLE_PAUSE_MS * 1000000L };

	*written = 0;
	for (size_t i = 0; i < files->count; i++) {
		const struct mcr_file *f = &files->files[i];
		int tries = 0, rc;

		while (!mcri_jobdir_same(d, f->name, f->text)) {
			/* bounded, whoever else writes it meanwhile */
			if (++tries > SETTLE_TRIES) {
				*differs = i;
				return 1;
			}
			if (!mcri_jobdir_exists(d, f->name)) {
				/* none yet: made whole, by one srun */
				if ((rc = mcri_jobdir_create(d, f->name, f->text, err)) < 0)
					return -1;
				*written += (size_t)rc;
				continue; /* ours, or another's: look again */
			}
			if (owner) {
				if (mcri_jobdir_write(d, f->name, f->text, strlen(f->text), true, err))
					return -1;
				(*written)++;
				continue;
			}
			nanosleep(&pause, NULL); /* one being replaced settles */
		}
	}
	return 0;
}

int mcri_jobdir_keep(const struct mcri_jobdir *d, const char *name, const char *suffix)
{
	char kept[NAME_MAX + 1];

	if (snprintf(kept, sizeof(kept), "%s.%s", name, suffix) >= (int)sizeof(kept) || strchr(suffix, '/'))
		return -1;
	return renameat(d->fd, name, d->fd, kept) == 0 || errno == ENOENT ? 0 : -1;
}

bool mcri_jobdir_same(const struct mcri_jobdir *d, const char *name, const char *text)
{
	struct mcr_error ignored;
	size_t len = strlen(text), got = 0;
	char *have = NULL;
	bool same;

	if (mcri_jobdir_read(d, name, len, &have, &got, &ignored))
		return false;
	same = got == len && memcmp(have, text, len) == 0;
	free(have);
	return same;
}

bool mcri_jobdir_exists(const struct mcri_jobdir *d, const char *name)
{
	struct stat st;

	return fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool mcri_job_id_parse(const char *text, uint32_t *id)
{
	unsigned long long v = 0;
	const char *c = text;

	for (; c && *c >= '0' && *c <= '9' && v <= 0xfffffffdULL; c++)
		v = v * 10 + (unsigned long long)(*c - '0');
	if (!text || c == text || *c || v == 0 || v > 0xfffffffdULL)
		return false;
	*id = (uint32_t)v;
	return true;
}

char *mcri_job_dir_path(const char *tmpl, const char *job_id, uid_t uid, const char *submit_dir, struct mcr_error *err)
{
	struct passwd pw, *res = NULL;
	char buf[4096], uidbuf[32];
	const char *user;

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name) {
		user = res->pw_name;
	} else {
		snprintf(uidbuf, sizeof(uidbuf), "%lu", (unsigned long)uid);
		user = uidbuf;
	}
	return mcri_expand_dir_template(tmpl, job_id, user, submit_dir, err);
}
