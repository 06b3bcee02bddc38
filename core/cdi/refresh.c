/* Writing the spec of our GPUs (see refresh.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"

#define REFRESH_LOCK_TIMEOUT_MS 30000

/* Whether path holds text already, with mode 0644. */
static bool up_to_date(const char *path, const char *text)
{
        _cleanup_free_ char *old = NULL;
        size_t len = 0;
        struct stat st;
        _cleanup_error_ struct ctk_error *err = NULL;
        return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644 &&
               ctk_file_read_all(path, &old, &len, &err) == 0 && len == strlen(text) && memcmp(old, text, len) == 0;
}

int ctk_cdi_spec_save(const char *path, const char *text, bool force, bool *written, struct ctk_error **err)
{
        if (written != NULL)
                *written = false;
        if (!force && up_to_date(path, text))
                return 0;
        if (ctk_mkdir_parent(path, 0755, err) < 0 ||
            ctk_file_write_atomic_mode(path, text, strlen(text), 0644, err) < 0)
                return -1;
        if (written != NULL)
                *written = true;
        return 0;
}

static bool digits(const char *s)
{
        return s != NULL && s[0] != '\0' && strspn(s, "0123456789") == strlen(s);
}

void ctk_cdi_options_of(const json_t *spec, struct ctk_cdi_options *o)
{
        ctk_cdi_options_init(o);
        bool index = false, uuid = false, gids = false;
        size_t i;
        const json_t *d;
        json_array_foreach(json_object_get(spec, "devices"), i, d)
        {
                const char *name = json_string_value(json_object_get(d, "name"));
                index = index || digits(name);
                uuid = uuid || (name != NULL && name[0] == '0' && (name[1] == 'x' || name[1] == 'X'));
                gids = gids || json_object_get(json_object_get(d, "containerEdits"), "additionalGids") != NULL;
        }
        o->by_index = index || !uuid;
        o->by_uuid = uuid;
        o->additional_gids = gids;
}

int ctk_cdi_refresh(struct ctk_backend *b, const char *path, const json_t *old, const char *lock_path, bool *written,
                    struct ctk_error **err)
{
        int lock = -1;
        if (lock_path != NULL) {
                if (ctk_mkdir_parent(lock_path, 0755, err) < 0 ||
                    (lock = ctk_flock_acquire(lock_path, REFRESH_LOCK_TIMEOUT_MS, err)) < 0)
                        return ctk_error_prefix(err, "refreshing the CDI spec %s", CTK_CUT(path));
        }
        struct ctk_cdi_options o;
        ctk_cdi_options_of(old, &o);
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        _cleanup_cdi_host_ struct ctk_cdi_host host = {0};
        _cleanup_json_ json_t *spec = NULL;
        _cleanup_free_ char *text = NULL;
        int r = ctk_discover_gpus(b, &gpus, err) < 0 || ctk_cdi_host_collect(b, &gpus, &host, err) < 0 ||
                        ctk_cdi_spec_build(&host, &o, &spec, err) < 0
                    ? -1
                    : 0;
        if (r == 0 && (text = ctk_cdi_spec_dump(spec)) == NULL)
                r = ctk_error_set(err, ENOMEM, "out of memory");
        if (r == 0)
                r = ctk_cdi_spec_save(path, text, false, written, err);
        ctk_flock_release(lock);
        return r < 0 ? ctk_error_prefix(err, "refreshing the CDI spec %s", CTK_CUT(path)) : 0;
}
