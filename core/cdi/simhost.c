/* A simulated host's sysfs in containers (see simhost.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"

/* What AMD's tools read below /sys: the KFD topology and DRM classes, the
 * devices they link to, the PCI bus and the driver's module. */
static const char *const pieces[] = {"class", "devices", "bus", "module"};

/* Is dir (absolute, resolved) the mount point of an amd-ctk-fakefs FUSE mount? */
static bool is_simulator_mount(const char *dir)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        char line[4096];
        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
                char mnt[PATH_MAX], fstype[64];
                const char *dash = strstr(line, " - ");
                if (dash != NULL && sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
                    sscanf(dash + 3, "%63s", fstype) == 1 && strcmp(mnt, dir) == 0 &&
                    strcmp(fstype, "fuse.amd-ctk-fakefs") == 0)
                        return true;
        }
        return false;
}

/* root resolved, when it is a simulated host; else NULL. */
static char *simhost(const char *root)
{
        if (root == NULL || strcmp(root, "/") == 0)
                return NULL;
        char *real = realpath(root, NULL);
        if (real == NULL || strcmp(real, "/") == 0 || strpbrk(real, " \t\n\\") != NULL || !is_simulator_mount(real)) {
                free(real);
                return NULL;
        }
        return real;
}

bool ctk_cdi_simhost_is(const char *root)
{
        _cleanup_free_ char *real = simhost(root);
        return real != NULL;
}

int ctk_cdi_simhost_mounts(const char *root, json_t **out, struct ctk_error **err)
{
        *out = NULL;
        _cleanup_free_ char *real = simhost(root);
        if (real == NULL)
                return 0;
        _cleanup_json_ json_t *arr = json_array();
        for (size_t i = 0; arr != NULL && i < sizeof(pieces) / sizeof(pieces[0]); i++) {
                _cleanup_free_ char *host = NULL, *ctr = NULL;
                if (asprintf(&host, "%s/sys/%s", real, pieces[i]) < 0 || asprintf(&ctr, "/sys/%s", pieces[i]) < 0) {
                        host = ctr = NULL;
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
                json_t *m = json_pack("{s:s, s:s, s:s, s:[s,s,s,s,s]}", "hostPath", host, "containerPath", ctr, "type",
                                      "bind", "options", "rbind", "ro", "nosuid", "nodev", "noexec");
                if (m == NULL || json_array_append_new(arr, m) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        if (arr == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        *out = ctk_steal(&arr);
        return 0;
}

int ctk_cdi_simhost_edits(const char *root, struct ctk_cdi_edits *e, json_t **keep, struct ctk_error **err)
{
        *keep = NULL;
        if (ctk_cdi_simhost_mounts(root, keep, err) < 0)
                return -1;
        size_t n = *keep != NULL ? json_array_size(*keep) : 0;
        if (n == 0)
                return 0;
        const json_t **v = realloc(
            e->mounts, (e->nmounts + n) * sizeof(*v)); // NOLINT(bugprone-sizeof-expression): an array of pointers
        if (v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        e->mounts = v;
        for (size_t i = 0; i < n; i++)
                e->mounts[e->nmounts++] = json_array_get(*keep, i);
        return 0;
}
