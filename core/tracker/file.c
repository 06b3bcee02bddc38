#include "file.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/base.h"

#define RESET_HINT "run 'amd-ctk gpu-tracker reset' to start over"

static int join(char **out, const char *dir, const char *name)
{
        size_t n = strlen(dir);
        bool slash = n > 0 && dir[n - 1] == '/';
        return asprintf(out, "%s%s%s", dir, slash ? "" : "/", name) < 0 ? (*out = NULL, -1) : 0;
}

int ctk_tracker_paths_init(struct ctk_tracker_paths *p, const char *dir, struct ctk_error **err)
{
        memset(p, 0, sizeof(*p));
        if (dir == NULL || dir[0] == '\0')
                return ctk_error_set(err, EINVAL, "the GPU Tracker state directory is empty");
        if ((p->dir = strdup(dir)) == NULL || join(&p->state, dir, CTK_TRACKER_STATE_FILE) < 0 ||
            join(&p->lock, dir, CTK_TRACKER_LOCK_FILE) < 0 || join(&p->enabled, dir, CTK_TRACKER_ENABLED_FILE) < 0) {
                ctk_tracker_paths_clear(p);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

void ctk_tracker_paths_clear(struct ctk_tracker_paths *p)
{
        free(p->dir);
        free(p->state);
        free(p->lock);
        free(p->enabled);
        memset(p, 0, sizeof(*p));
}

int ctk_tracker_load(const struct ctk_tracker_paths *p, struct ctk_tracker_state *out, bool *missing,
                     struct ctk_error **err)
{
        memset(out, 0, sizeof(*out));
        *missing = false;
        _cleanup_free_ char *text = NULL;
        size_t len;
        _cleanup_error_ struct ctk_error *e = NULL;
        if (ctk_file_read(p->state, CTK_TRACKER_STATE_MAX, CTK_READ_NOFOLLOW, &text, &len, &e) < 0) {
                if (e->code == ENOENT) {
                        *missing = true;
                        return 0;
                }
                if (e->code == ELOOP)
                        return ctk_error_set(err, ELOOP,
                                             "GPU Tracker state %s is a symbolic link: refused (remove it, then run "
                                             "'amd-ctk gpu-tracker reset')",
                                             CTK_CUT(p->state));
                ctk_error_set_msg(err, e->code, e->msg);
                ctk_error_prepend(err, "GPU Tracker state %s cannot be read (", CTK_CUT(p->state));
                return ctk_error_suffix(err, "); " RESET_HINT);
        }
        if (ctk_tracker_state_parse(text, len, out, &e) < 0) {
                ctk_error_set_msg(err, EBADMSG, e->msg);
                ctk_error_prepend(err, "GPU Tracker state %s is corrupt (", CTK_CUT(p->state));
                return ctk_error_suffix(err, "); " RESET_HINT);
        }
        return 0;
}

/* Temporary files of writers killed mid-write (ctk_file_write_atomic names
 * them ".<name>." and six characters).  Only called under the lock, when no other writer
 * can have one open. */
static void remove_stale_temporaries(const struct ctk_tracker_paths *p)
{
        DIR *d = opendir(p->dir);
        if (d == NULL)
                return;
        static const char prefix[] = "." CTK_TRACKER_STATE_FILE ".";
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
                if (strncmp(e->d_name, prefix, sizeof(prefix) - 1) == 0 && strlen(e->d_name) == sizeof(prefix) + 5)
                        unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
}

int ctk_tracker_save(const struct ctk_tracker_paths *p, const struct ctk_tracker_state *s, struct ctk_error **err)
{
        _cleanup_free_ char *text = ctk_tracker_state_format(s);
        if (text == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory formatting the GPU Tracker state");
        remove_stale_temporaries(p);
        if (ctk_file_write_atomic(p->state, text, strlen(text), 0644, err) < 0)
                return ctk_error_prefix(err, "cannot write the GPU Tracker state");
        return 0;
}

bool ctk_tracker_marker_exists(const struct ctk_tracker_paths *p)
{
        return access(p->enabled, F_OK) == 0;
}

int ctk_tracker_set_marker(const struct ctk_tracker_paths *p, bool enabled, struct ctk_error **err)
{
        if (enabled) {
                if (ctk_tracker_marker_exists(p))
                        return 0;
                int fd = open(p->enabled, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
                if (fd < 0)
                        return ctk_error_errno(err, errno, "cannot create %s", CTK_CUT(p->enabled));
                close(fd);
        } else {
                if (unlink(p->enabled) < 0) {
                        if (errno == ENOENT)
                                return 0;
                        return ctk_error_errno(err, errno, "cannot remove %s", CTK_CUT(p->enabled));
                }
        }
        return ctk_fsync_parent_dir(p->enabled, err);
}

/* The refusal of a state directory that is not root's alone, with the fix. */
static int refuse_dir(const char *dir, const struct ctk_error *why, bool itself, struct ctk_error **err)
{
        ctk_error_set_msg(err, why->code, why->msg);
        ctk_error_prepend(err, "GPU Tracker state directory ");
        if (!itself)
                return ctk_error_suffix(err, ": refused (chown root:root and chmod go-w that directory, or set "
                                             "state-dir to a directory only root can write)");
        if (geteuid() != 0)
                return ctk_error_suffix(err, ": refused (chmod 0700 %s)", CTK_CUT(dir));
        return ctk_error_suffix(err, ": refused (chown root:root %s; chmod 0700 %s)", CTK_CUT(dir), CTK_CUT(dir));
}

int ctk_tracker_dir_check(const char *dir, struct ctk_error **err)
{
        _cleanup_trust_walk_ struct ctk_trust_walk w;
        _cleanup_error_ struct ctk_error *why = NULL;
        if (ctk_trust_walk(dir, CTK_TRUST_FOLLOW, &w, &why) < 0) {
                if (why->code != EPERM && why->code != ELOOP)
                        return ctk_error_errno(err, why->code, "GPU Tracker state directory %s", CTK_CUT(dir));
                return refuse_dir(dir, why, false, err);
        }
        if (!w.exists)
                return ctk_error_errno(err, ENOENT, "GPU Tracker state directory %s", CTK_CUT(dir));
        if (!S_ISDIR(w.st.st_mode))
                return ctk_error_set(err, ENOTDIR, "GPU Tracker state directory %s is not a directory", CTK_CUT(dir));
        /* its own: no sticky bit excuses another user's write here (a
         * marker or state of theirs would be taken for ours) */
        enum ctk_trust t = ctk_trust_check(&w.st, geteuid());
        if (t == CTK_TRUSTED)
                return 0;
        _cleanup_free_ char *target = w.via_link ? ctk_str_concat("its target ", w.dir, "/") : NULL;
        _cleanup_free_ char *what = target != NULL ? ctk_str_concat(target, w.name, NULL) : strdup("it");
        if (what == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        ctk_trust_refuse(dir, what, &w.st, t, geteuid(), &why);
        return refuse_dir(dir, why, true, err);
}

int ctk_tracker_dir_make(const char *dir, struct ctk_error **err)
{
        _cleanup_trust_walk_ struct ctk_trust_walk w;
        _cleanup_error_ struct ctk_error *why = NULL;
        if (ctk_trust_walk(dir, CTK_TRUST_FOLLOW | CTK_TRUST_MKDIR, &w, &why) < 0) {
                if (why->code != EPERM && why->code != ELOOP)
                        return ctk_error_errno(err, why->code, "cannot create the GPU Tracker state directory %s",
                                               CTK_CUT(dir));
                return refuse_dir(dir, why, false, err);
        }
        if (!w.exists && mkdirat(w.dirfd, w.name, 0700) < 0 && errno != EEXIST)
                return ctk_error_errno(err, errno, "cannot create the GPU Tracker state directory %s", CTK_CUT(dir));
        return ctk_tracker_dir_check(dir, err);
}

int ctk_tracker_marker_check(const char *dir, const char *marker, bool *on, struct ctk_error **err)
{
        *on = false;
        _cleanup_error_ struct ctk_error *e = NULL;
        if (ctk_tracker_dir_check(dir, &e) < 0) {
                if (e->code == ENOENT) /* never enabled */
                        return 0;
                *err = ctk_steal(&e);
                return -1;
        }
        *on = access(marker, F_OK) == 0;
        return 0;
}
