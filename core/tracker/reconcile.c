#include "reconcile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/base.h"
#include "alloc.h"

char *ctk_read_boot_id(const char *path)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        char *text = NULL;
        if (ctk_file_read_all(path, &text, NULL, &err) < 0)
                return NULL;
        char *s = text;
        while (isspace((unsigned char)*s))
                s++;
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char)s[n - 1]))
                s[--n] = '\0';
        char *id = n > 0 ? strdup(s) : NULL;
        free(text);
        return id;
}

int ctk_proc_start_time(const char *proc_dir, pid_t pid, unsigned long long *out)
{
        if (pid <= 0)
                return -1;
        _cleanup_free_ char *path = NULL, *text = NULL;
        _cleanup_error_ struct ctk_error *err = NULL;
        if (asprintf(&path, "%s/%d/stat", proc_dir, (int)pid) < 0) {
                path = NULL;
                return -1;
        }
        if (ctk_file_read_all(path, &text, NULL, &err) < 0)
                return -1;
        /* "pid (comm) S ppid ..." - comm may contain spaces and ')'. */
        char *p = strrchr(text, ')');
        if (p == NULL)
                return -1;
        p++;
        char state = 0;
        for (int field = 3; field <= 22; field++) {
                while (*p == ' ')
                        p++;
                if (*p == '\0')
                        return -1;
                if (field == 3)
                        state = *p;
                if (field == 22) {
                        char *end;
                        errno = 0;
                        unsigned long long v = strtoull(p, &end, 10);
                        if (errno != 0 || end == p || (*end != ' ' && *end != '\n' && *end != '\0'))
                                return -1;
                        if (state == 'Z' || state == 'X')
                                return -1;
                        *out = v;
                        return 0;
                }
                while (*p != ' ' && *p != '\0')
                        p++;
        }
        return -1;
}

int ctk_tracker_apply_boot_id(struct ctk_tracker_state *s, const char *boot_id, bool *changed, struct ctk_error **err)
{
        *changed = false;
        if (boot_id == NULL)
                return 0;
        if (s->boot_id != NULL && strcmp(s->boot_id, boot_id) == 0)
                return 0;
        if (s->boot_id != NULL) /* containers of an earlier boot are all gone */
                while (s->ncontainers > 0)
                        ctk_tracker_state_remove_container(s, s->ncontainers - 1);
        char *id = strdup(boot_id);
        if (id == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        free(s->boot_id);
        s->boot_id = id;
        *changed = true;
        return 0;
}

/* 1: exists, 0: absent, -1: cannot tell. */
static int runtime_state_exists(const char *root, const char *id)
{
        static const char *const names[] = {"state.json", "status"};
        int result = 0;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                _cleanup_free_ char *path = NULL;
                if (asprintf(&path, "%s/%s/%s", root, id, names[i]) < 0) {
                        path = NULL;
                        return -1;
                }
                struct stat st;
                if (stat(path, &st) == 0)
                        return 1;
                if (errno != ENOENT && errno != ENOTDIR)
                        result = -1;
        }
        return result;
}

bool ctk_tracker_creator_running(const struct ctk_tracker_container *c, const char *proc_dir)
{
        unsigned long long start;
        return c->pid > 0 && ctk_proc_start_time(proc_dir, c->pid, &start) == 0 &&
               (c->pid_start == 0 || c->pid_start == start);
}

enum ctk_container_presence ctk_tracker_container_presence(const struct ctk_tracker_container *c, const char *proc_dir)
{
        if (c->runtime_root == NULL || !ctk_tracker_valid_container_id(c->id))
                return CTK_CONTAINER_UNKNOWN;
        /* The creator first: once it is gone, the runtime's create is over
         * and its state is final.  (Looked at the other way round, runc can
         * write state.json and exit between the two looks.) */
        if (ctk_tracker_creator_running(c, proc_dir))
                return CTK_CONTAINER_PRESENT; /* still being created */
        int r = runtime_state_exists(c->runtime_root, c->id);
        return r > 0 ? CTK_CONTAINER_PRESENT : r < 0 ? CTK_CONTAINER_UNKNOWN : CTK_CONTAINER_GONE;
}

static bool interesting(const struct ctk_tracker_container *c, const bool *interest)
{
        if (interest == NULL)
                return true;
        for (size_t k = 0; k < c->ngpus; k++)
                if (interest[c->gpus[k]])
                        return true;
        return false;
}

size_t ctk_tracker_reconcile(struct ctk_tracker_state *s, const char *proc_dir, const bool *interest)
{
        size_t dropped = 0;
        for (size_t i = 0; i < s->ncontainers;) {
                const struct ctk_tracker_container *c = &s->containers[i];
                if (interesting(c, interest) && ctk_tracker_container_presence(c, proc_dir) == CTK_CONTAINER_GONE) {
                        ctk_tracker_state_remove_container(s, i);
                        dropped++;
                } else {
                        i++;
                }
        }
        return dropped;
}
