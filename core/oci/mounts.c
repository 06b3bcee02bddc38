/* mounts: CDI's replace-by-destination, ID-mapped bind mounts in a user
 * namespace, and the depth order (see members.h). */
#include "members.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "edit.h"
#include "idmap.h"
#include "member.h"

/* The number of components of the cleaned path: "/" 0, "/a" 1, "/a/b/" 2,
 * "/a/./b/../c" 2 (Go's filepath.Clean, then counting separators; relative
 * paths count one more for their first component, as Clean gives "a/b"). */
static size_t depth(const char *path)
{
        size_t n = 0;
        bool absolute = path[0] == '/';
        const char *p = path;
        size_t up = 0; /* leading ".." of a relative path */
        while (*p != '\0') {
                while (*p == '/')
                        p++;
                const char *start = p;
                while (*p != '\0' && *p != '/')
                        p++;
                size_t len = (size_t)(p - start);
                if (len == 0 || (len == 1 && start[0] == '.'))
                        continue;
                if (len == 2 && start[0] == '.' && start[1] == '.') {
                        if (n > 0)
                                n--;
                        else if (!absolute)
                                up++;
                        continue;
                }
                n++;
        }
        size_t parts = n + up;
        if (absolute)
                return parts;
        return parts > 0 ? parts - 1 : 0;
}

/* idmap for a bind mount, ridmap for an rbind one, unless either is there. */
static int add_idmap(json_t *m, struct ctk_error **err)
{
        const char *type = json_string_value(json_object_get(m, "type"));
        const char *option = type != NULL && strcmp(type, "bind") == 0 ? "idmap" : NULL;
        json_t *options = json_object_get(m, "options");
        size_t i;
        const json_t *o;
        json_array_foreach(options, i, o)
        {
                const char *s = json_string_value(o);
                if (s == NULL)
                        continue;
                if (strcmp(s, "idmap") == 0 || strcmp(s, "ridmap") == 0)
                        return 0;
                if (strcmp(s, "bind") == 0)
                        option = "idmap";
                else if (strcmp(s, "rbind") == 0)
                        option = "ridmap";
        }
        if (option == NULL)
                return 0;
        if (options == NULL) {
                options = json_array();
                if (options == NULL || json_object_set_new(m, "options", options) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        if (json_array_append_new(options, json_string(option)) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}

struct ranked {
        json_t *m;
        size_t depth, seq;
};

static int by_depth(const void *a, const void *b)
{
        const struct ranked *x = a, *y = b;
        if (x->depth != y->depth)
                return x->depth < y->depth ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts the array stably by destination depth (qsort with the position as
 * the last key). */
static int sort_mounts(json_t *mounts, struct ctk_error **err)
{
        size_t n = json_array_size(mounts);
        if (n < 2)
                return 0;
        _cleanup_free_ struct ranked *v = calloc(n, sizeof(*v));
        if (v == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
                json_t *m = json_array_get(mounts, i);
                const char *dst = json_string_value(json_object_get(m, "destination"));
                v[i] = (struct ranked){json_incref(m), depth(dst != NULL ? dst : ""), i};
        }
        qsort(v, n, sizeof(*v), by_depth);
        int r = 0;
        for (size_t i = 0; i < n; i++)
                if (r == 0 && json_array_set(mounts, i, v[i].m) < 0)
                        r = ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
                json_decref(v[i].m);
        return r;
}

static void remove_destination(json_t *mounts, const char *dst)
{
        for (size_t i = 0; i < json_array_size(mounts); i++) {
                const char *d = json_string_value(json_object_get(json_array_get(mounts, i), "destination"));
                if (d != NULL && strcmp(d, dst) == 0) {
                        json_array_remove(mounts, i);
                        return;
                }
        }
}

int ctk_oci_put_mounts(json_t *spec, json_t *const *add, size_t n, struct ctk_error **err)
{
        json_t *mounts = NULL;
        int r = ctk_oci_check_root(spec, err);
        if (r == 0 && n > 0)
                r = ctk_oci_member(spec, "mounts", JSON_ARRAY, true, "mounts", &mounts, err);
        bool userns = r == 0 && ctk_oci_has_user_namespace(spec);
        size_t i = 0;
        for (; r == 0 && i < n; i++) {
                const char *dst = json_string_value(json_object_get(add[i], "destination"));
                if (dst == NULL) {
                        r = ctk_error_set(err, EINVAL, "a mount without a destination");
                        break;
                }
                remove_destination(mounts, dst);
                if ((userns && add_idmap(add[i], err) < 0) || json_array_append(mounts, add[i]) < 0)
                        r = ctk_error_set(err, ENOMEM, "out of memory");
                json_decref(add[i]);
        }
        for (; i < n; i++) /* the ones not reached */
                json_decref(add[i]);
        if (r == 0 && n > 0)
                r = sort_mounts(mounts, err);
        return r;
}
