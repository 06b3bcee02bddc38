/* Editing Docker's daemon.json (see docker.h).
 *
 * Choices, where the Go toolkit differs:
 * - runtimes.<name> is {"path": P} plus "runtimeArgs" (Docker's key) when
 *   arguments are given; the Go tool wrote "args", which Docker ignores.
 * - features.cdi = true (false with no_cdi) is merged into an existing
 *   "features" object.
 * - REMOVE deletes runtimes.<name> ("runtimes" too when that leaves it
 *   empty) and default-runtime when it names us.  It keeps features.cdi:
 *   nothing records who enabled it, other vendors' CDI devices need it, and
 *   Docker 28.2+ enables CDI by default anyway.
 * - UNSET_DEFAULT deletes default-runtime only when it names us. */
#include "docker.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"
#include "core/json/json.h"

static int fail_at(const char *text, size_t len, const char *name, const char *key, struct ctk_error **err,
                   const char *what, const json_t *v)
{
        struct ctk_json_step step = {.key = key};
        struct ctk_json_pos pos;
        if (ctk_json_locate(text, len, &step, key != NULL ? 1 : 0, &pos) < 0)
                pos = (struct ctk_json_pos){1, 1};
        if (key == NULL)
                return ctk_error_set(err, EINVAL, "%s:%d:%d: the file must contain a JSON object, not %s",
                                     CTK_CUT(name), pos.line, pos.column, ctk_json_type_name(v));
        return ctk_error_set(err, EINVAL, "%s:%d:%d: \"%s\" must be %s, not %s; fix or remove it and try again",
                             CTK_CUT(name), pos.line, pos.column, CTK_CUT(key), CTK_CUT(what), ctk_json_type_name(v));
}

int ctk_docker_config_parse(const char *text, size_t len, const char *name, json_t **out, struct ctk_error **err)
{
        if (ctk_json_text_is_blank(text, len)) {
                *out = json_object();
                return *out != NULL ? 0 : ctk_error_set(err, ENOMEM, "out of memory");
        }
        json_error_t jerr;
        _cleanup_json_ json_t *doc =
            json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        if (doc == NULL)
                return ctk_error_set(err, EINVAL, "%s:%d:%d: %s", CTK_CUT(name), jerr.line, jerr.column, jerr.text);
        if (!json_is_object(doc))
                return fail_at(text, len, name, NULL, err, NULL, doc);
        static const struct {
                const char *key;
                json_type type;
                const char *what;
        } typed[] = {
            {"runtimes", JSON_OBJECT, "an object"},
            {"features", JSON_OBJECT, "an object"},
            {"default-runtime", JSON_STRING, "a string"},
        };
        for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
                const json_t *v = json_object_get(doc, typed[i].key);
                if (v != NULL && json_typeof(v) != typed[i].type)
                        return fail_at(text, len, name, typed[i].key, err, typed[i].what, v);
        }
        *out = ctk_steal(&doc);
        return 0;
}

const char *ctk_docker_default_runtime(const json_t *doc)
{
        return json_string_value(json_object_get(doc, "default-runtime"));
}

static bool names_us(const json_t *doc, const char *name)
{
        const char *d = ctk_docker_default_runtime(doc);
        return d != NULL && strcmp(d, name) == 0;
}

/* Returns doc[key] as an object, creating it (at the end) when absent. */
static json_t *object_member(json_t *doc, const char *key)
{
        json_t *o = json_object_get(doc, key);
        if (o != NULL)
                return o;
        if (json_object_set_new(doc, key, json_object()) < 0)
                return NULL;
        return json_object_get(doc, key);
}

static json_t *runtime_entry(const struct ctk_docker_edit *e)
{
        _cleanup_json_ json_t *entry = json_object();
        if (entry == NULL || json_object_set_new(entry, "path", json_string(e->path)) < 0)
                return NULL;
        if (e->nargs > 0) {
                json_t *args = json_array();
                if (json_object_set_new(entry, "runtimeArgs", args) < 0)
                        return NULL;
                for (size_t i = 0; i < e->nargs; i++)
                        if (json_array_append_new(args, json_string(e->args[i])) < 0)
                                return NULL;
        }
        return ctk_steal(&entry);
}

static int add(json_t *doc, const struct ctk_docker_edit *e, unsigned *changes)
{
        json_t *runtimes = object_member(doc, "runtimes");
        json_t *entry = runtime_entry(e);
        if (runtimes == NULL || entry == NULL) {
                json_decref(entry);
                return -1;
        }
        const json_t *old = json_object_get(runtimes, e->name);
        if (old == NULL || !json_equal(old, entry)) {
                *changes |= old == NULL ? CTK_DOCKER_RUNTIME_ADDED : CTK_DOCKER_RUNTIME_UPDATED;
                if (json_object_set_new(runtimes, e->name, entry) < 0)
                        return -1;
        } else {
                json_decref(entry);
        }

        json_t *features = object_member(doc, "features");
        if (features == NULL)
                return -1;
        json_t *cdi = json_object_get(features, "cdi");
        if (e->no_cdi ? !json_is_false(cdi) : !json_is_true(cdi)) {
                *changes |= e->no_cdi ? CTK_DOCKER_CDI_DISABLED : CTK_DOCKER_CDI_ENABLED;
                if (json_object_set_new(features, "cdi", json_boolean(!e->no_cdi)) < 0)
                        return -1;
        }

        if (e->set_as_default && !names_us(doc, e->name)) {
                *changes |= CTK_DOCKER_DEFAULT_SET;
                if (json_object_set_new(doc, "default-runtime", json_string(e->name)) < 0)
                        return -1;
        }
        return 0;
}

static void unset_default(json_t *doc, const struct ctk_docker_edit *e, unsigned *changes)
{
        if (names_us(doc, e->name)) {
                json_object_del(doc, "default-runtime");
                *changes |= CTK_DOCKER_DEFAULT_UNSET;
        }
}

static void remove_runtime(json_t *doc, const struct ctk_docker_edit *e, unsigned *changes)
{
        json_t *runtimes = json_object_get(doc, "runtimes");
        if (runtimes != NULL && json_object_get(runtimes, e->name) != NULL) {
                json_object_del(runtimes, e->name);
                *changes |= CTK_DOCKER_RUNTIME_REMOVED;
                if (json_object_size(runtimes) == 0)
                        json_object_del(doc, "runtimes");
        }
        unset_default(doc, e, changes);
}

int ctk_docker_config_apply(json_t *doc, const struct ctk_docker_edit *e, unsigned *changes, struct ctk_error **err)
{
        *changes = 0;
        if (!json_is_object(doc))
                return ctk_error_set(err, EINVAL, "the Docker configuration must be a JSON object");
        switch (e->action) {
        case CTK_DOCKER_ADD:
                if (add(doc, e, changes) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                return 0;
        case CTK_DOCKER_UNSET_DEFAULT:
                unset_default(doc, e, changes);
                return 0;
        case CTK_DOCKER_REMOVE:
                remove_runtime(doc, e, changes);
                return 0;
        }
        return ctk_error_set(err, EINVAL, "unknown edit");
}

int ctk_json_guess_indent(const char *text, size_t len)
{
        for (size_t i = 0; i < len; i++) {
                if (text[i] != '\n')
                        continue;
                size_t n = 0;
                while (i + 1 + n < len && text[i + 1 + n] == ' ')
                        n++;
                if (i + 1 + n < len && text[i + 1 + n] == '"')
                        return n >= 1 && n <= 8 ? (int)n : 4;
        }
        return 4;
}

/* Fewest significant digits that print d so that it reads back exactly. */
static int real_digits(double d)
{
        for (int p = 1; p < 17; p++) {
                char buf[64];
                (void)snprintf(buf, sizeof(buf), "%.*g", p, d);
                if (strtod(buf, NULL) == d)
                        return p;
        }
        return 17;
}

static int max_real_digits(const json_t *v)
{
        int max = 1;
        size_t i;
        const char *key;
        json_t *e;
        switch (json_typeof(v)) {
        case JSON_REAL:
                return real_digits(json_real_value(v));
        case JSON_ARRAY:
                json_array_foreach(v, i, e)
                {
                        int p = max_real_digits(e);
                        max = p > max ? p : max;
                }
                return max;
        case JSON_OBJECT:
                json_object_foreach((json_t *)v, key, e)
                {
                        int p = max_real_digits(e);
                        max = p > max ? p : max;
                }
                return max;
        default:
                return max;
        }
}

char *ctk_docker_config_dump(const json_t *doc, int indent)
{
        if (indent < 1 || indent > 8)
                indent = 4;
        size_t flags = JSON_INDENT(indent) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(max_real_digits(doc));
        _cleanup_free_ char *s = json_dumps(doc, flags);
        if (s == NULL)
                return NULL;
        char *out = NULL;
        if (asprintf(&out, "%s\n", s) < 0)
                return NULL;
        return out;
}
