/* The structure of a CDI spec: which keys exist where, the type of each
 * value, which keys are required (CDI's Go types and JSON schema).
 * Unknown keys are errors, as in CDI's strict decoder; keys that differ from
 * a known one only in ASCII case are what Go's decoder accepts, so they are
 * accepted with a warning and renamed to the canonical spelling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "walk.h"
#include "core/base/base.h"
#include "core/json/json.h"

enum value_kind {
        T_STRING,
        T_STRINGS, /* array of strings */
        T_INT64,
        T_UINT32,
        T_UINT32S, /* array of uint32 */
        T_INT,     /* Go int (hook timeout) */
        T_BOOL,
        T_MAP,     /* object of string values */
        T_OBJECT,  /* object described by sub */
        T_OBJECTS, /* array of objects described by sub */
};

struct field {
        const char *key;
        enum value_kind kind;
        bool required;
        const struct field *sub;
};

static const struct field device_node_fields[] = {
    {"path", T_STRING, true, NULL},         {"hostPath", T_STRING, false, NULL},
    {"type", T_STRING, false, NULL},        {"major", T_INT64, false, NULL},
    {"minor", T_INT64, false, NULL},        {"fileMode", T_UINT32, false, NULL},
    {"permissions", T_STRING, false, NULL}, {"uid", T_UINT32, false, NULL},
    {"gid", T_UINT32, false, NULL},         {NULL, 0, false, NULL},
};

static const struct field mount_fields[] = {
    {"hostPath", T_STRING, true, NULL},
    {"containerPath", T_STRING, true, NULL},
    {"type", T_STRING, false, NULL},
    {"options", T_STRINGS, false, NULL},
    {NULL, 0, false, NULL},
};

static const struct field hook_fields[] = {
    {"hookName", T_STRING, true, NULL}, {"path", T_STRING, true, NULL},  {"args", T_STRINGS, false, NULL},
    {"env", T_STRINGS, false, NULL},    {"timeout", T_INT, false, NULL}, {NULL, 0, false, NULL},
};

static const struct field intel_rdt_fields[] = {
    {"closID", T_STRING, false, NULL},         {"l3CacheSchema", T_STRING, false, NULL},
    {"memBwSchema", T_STRING, false, NULL},    {"schemata", T_STRINGS, false, NULL},
    {"enableMonitoring", T_BOOL, false, NULL}, {NULL, 0, false, NULL},
};

static const struct field net_device_fields[] = {
    {"hostInterfaceName", T_STRING, true, NULL},
    {"name", T_STRING, true, NULL},
    {NULL, 0, false, NULL},
};

static const struct field edits_fields[] = {
    {"env", T_STRINGS, false, NULL},
    {"deviceNodes", T_OBJECTS, false, device_node_fields},
    {"mounts", T_OBJECTS, false, mount_fields},
    {"hooks", T_OBJECTS, false, hook_fields},
    {"intelRdt", T_OBJECT, false, intel_rdt_fields},
    {"additionalGids", T_UINT32S, false, NULL},
    {"netDevices", T_OBJECTS, false, net_device_fields},
    {NULL, 0, false, NULL},
};

static const struct field device_fields[] = {
    {"name", T_STRING, true, NULL},
    {"annotations", T_MAP, false, NULL},
    {"containerEdits", T_OBJECT, true, edits_fields},
    {NULL, 0, false, NULL},
};

static const struct field spec_fields[] = {
    {"cdiVersion", T_STRING, true, NULL},
    {"kind", T_STRING, true, NULL},
    {"annotations", T_MAP, false, NULL},
    {"devices", T_OBJECTS, true, device_fields},
    {"containerEdits", T_OBJECT, false, edits_fields},
    {NULL, 0, false, NULL},
};

static void check_object(json_t *obj, const struct field *fields, struct ctk_cdi_walk *w);

static bool in_range(const json_t *v, json_int_t lo, json_int_t hi)
{
        return json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi;
}

static void check_scalar(json_t *v, enum value_kind kind, struct ctk_cdi_walk *w)
{
        switch (kind) {
        case T_STRING:
        case T_STRINGS:
        case T_MAP:
                if (!json_is_string(v))
                        ctk_cdi_error(w, "must be a string, not %s", ctk_json_type_name_exact(v));
                break;
        case T_INT64:
        case T_INT:
                if (!json_is_integer(v))
                        ctk_cdi_error(w, "must be an integer, not %s", ctk_json_type_name_exact(v));
                break;
        case T_UINT32:
        case T_UINT32S:
                if (!in_range(v, 0, 4294967295LL))
                        ctk_cdi_error(w, "must be an integer from 0 to 4294967295, not %s",
                                      json_is_integer(v) ? "out of range" : ctk_json_type_name_exact(v));
                break;
        case T_BOOL:
                if (!json_is_boolean(v))
                        ctk_cdi_error(w, "must be true or false, not %s", ctk_json_type_name_exact(v));
                break;
        case T_OBJECT:
        case T_OBJECTS:
                break;
        }
}

static void check_value(json_t *v, const struct field *f, struct ctk_cdi_walk *w)
{
        size_t i;
        json_t *x;
        const char *k;
        switch (f->kind) {
        case T_STRINGS:
        case T_UINT32S:
        case T_OBJECTS:
                if (!json_is_array(v)) {
                        ctk_cdi_error(w, "must be an array, not %s", ctk_json_type_name_exact(v));
                        return;
                }
                json_array_foreach(v, i, x)
                {
                        ctk_cdi_walk_index(w, i);
                        if (f->kind == T_OBJECTS)
                                check_object(x, f->sub, w);
                        else
                                check_scalar(x, f->kind, w);
                        ctk_cdi_walk_pop(w);
                }
                return;
        case T_MAP:
                if (!json_is_object(v)) {
                        ctk_cdi_error(w, "must be an object of strings, not %s", ctk_json_type_name_exact(v));
                        return;
                }
                json_object_foreach(v, k, x)
                {
                        ctk_cdi_walk_key(w, k);
                        check_scalar(x, f->kind, w);
                        ctk_cdi_walk_pop(w);
                }
                return;
        case T_OBJECT:
                check_object(v, f->sub, w);
                return;
        default:
                check_scalar(v, f->kind, w);
                return;
        }
}

static const struct field *find_field(const struct field *fields, const char *key, bool fold)
{
        for (const struct field *f = fields; f->key != NULL; f++)
                if (fold ? strcasecmp(f->key, key) == 0 : strcmp(f->key, key) == 0)
                        return f;
        return NULL;
}

static char *known_keys(const struct field *fields)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);
        if (f == NULL)
                return NULL;
        for (const struct field *x = fields; x->key != NULL; x++)
                fprintf(f, "%s%s", x == fields ? "" : ", ", x->key);
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}

/* Unknown keys are errors; case variants of a known key are renamed. */
static void check_keys(json_t *obj, const struct field *fields, struct ctk_cdi_walk *w)
{
        struct ctk_strv renames _cleanup_strv_ = {0};
        const char *k;
        json_t *x;
        json_object_foreach(obj, k, x)
        {
                if (find_field(fields, k, false) != NULL)
                        continue;
                const struct field *f = find_field(fields, k, true);
                ctk_cdi_walk_key(w, k);
                if (f == NULL) {
                        _cleanup_free_ char *known = known_keys(fields);
                        ctk_cdi_error(w, "unknown key \"%s\" (known here: %s)", CTK_CUT(k),
                                      CTK_CUT(known != NULL ? known : "?"));
                } else if (json_object_get(obj, f->key) != NULL) {
                        ctk_cdi_error(w, "key \"%s\" duplicates \"%s\" (CDI loaders match keys without regard to case)",
                                      CTK_CUT(k), f->key);
                } else {
                        ctk_cdi_warn(w, "key \"%s\" is read as \"%s\" by CDI loaders; write \"%s\"", CTK_CUT(k), f->key,
                                     f->key);
                        ctk_strv_push(&renames, k);
                }
                ctk_cdi_walk_pop(w);
        }
        for (size_t i = 0; i < renames.n; i++) {
                const struct field *f = find_field(fields, renames.v[i], true);
                json_object_set(obj, f->key, json_object_get(obj, renames.v[i]));
                json_object_del(obj, renames.v[i]);
        }
}

static void check_object(json_t *obj, const struct field *fields, struct ctk_cdi_walk *w)
{
        if (!json_is_object(obj)) {
                ctk_cdi_error(w, "must be an object, not %s", ctk_json_type_name_exact(obj));
                return;
        }
        check_keys(obj, fields, w);
        for (const struct field *f = fields; f->key != NULL; f++) {
                json_t *v = json_object_get(obj, f->key);
                if (v == NULL) {
                        if (f->required)
                                ctk_cdi_error(w, "missing required key \"%s\"", f->key);
                        continue;
                }
                ctk_cdi_walk_key(w, f->key);
                check_value(v, f, w);
                ctk_cdi_walk_pop(w);
        }
}

void ctk_cdi_check_shape(json_t *doc, struct ctk_cdi_walk *w)
{
        if (!json_is_object(doc)) {
                ctk_cdi_error(w, "a CDI spec must be a JSON object, not %s", ctk_json_type_name_exact(doc));
                return;
        }
        check_object(doc, spec_fields, w);
}

/* ---- YAML's scalars in string fields ---- */

/* A number or boolean as the reference decoder turns it into a string
 * field's value: Go's strconv formatting of the resolved value (integers
 * in decimal, "true"/"false", reals shortest with an exponent from 1e6 or
 * below 1e-4). */
static json_t *go_string(const json_t *v)
{
        char buf[64];
        if (json_is_boolean(v))
                return json_string(json_is_true(v) ? "true" : "false");
        if (json_is_integer(v)) {
                (void)snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                return json_string(buf);
        }
        double d = json_real_value(v);
        int prec = 1;
        for (; prec < 17; prec++) { /* the shortest digits that read back as d */
                (void)snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
                if (strtod(buf, NULL) == d)
                        break;
        }
        const char *e = strchr(buf, 'e'); /* "%e" always writes one */
        if (e == NULL)
                return json_string(buf);
        long exp = strtol(e + 1, NULL, 10);
        if (exp < -4 || exp >= 6) {
                char mant[40];
                (void)snprintf(mant, sizeof(mant), "%.*s", (int)(e - buf), buf);
                (void)snprintf(buf, sizeof(buf), "%se%c%02ld", mant, exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        } else {
                (void)snprintf(buf, sizeof(buf), "%.*f", prec - 1 - exp > 0 ? (int)(prec - 1 - exp) : 0, d);
        }
        return json_string(buf);
}

static bool scalar_not_string(const json_t *v)
{
        return json_is_number(v) || json_is_boolean(v);
}

static void coerce_object(json_t *obj, const struct field *fields);

static void coerce_value(json_t *v, const struct field *f)
{
        size_t i;
        json_t *x;
        const char *k;
        switch (f->kind) {
        case T_STRINGS:
                json_array_foreach(v, i, x)
                {
                        if (scalar_not_string(x))
                                json_array_set_new(v, i, go_string(x));
                }
                return;
        case T_MAP: {
                struct ctk_strv keys _cleanup_strv_ = {0};
                json_object_foreach(v, k, x)
                {
                        if (scalar_not_string(x))
                                ctk_strv_push(&keys, k);
                }
                for (size_t n = 0; n < keys.n; n++)
                        json_object_set_new(v, keys.v[n], go_string(json_object_get(v, keys.v[n])));
                return;
        }
        case T_OBJECT:
                coerce_object(v, f->sub);
                return;
        case T_OBJECTS:
                json_array_foreach(v, i, x) coerce_object(x, f->sub);
                return;
        default:
                return;
        }
}

static void coerce_object(json_t *obj, const struct field *fields)
{
        if (!json_is_object(obj))
                return;
        struct ctk_strv keys _cleanup_strv_ = {0};
        const char *k;
        json_t *x;
        json_object_foreach(obj, k, x) ctk_strv_push(&keys, k);
        for (size_t n = 0; n < keys.n; n++) {
                const struct field *f = find_field(fields, keys.v[n], true);
                json_t *v = json_object_get(obj, keys.v[n]);
                if (f == NULL)
                        continue;
                if (f->kind == T_STRING && scalar_not_string(v))
                        json_object_set_new(obj, keys.v[n], go_string(v));
                else
                        coerce_value(v, f);
        }
}

void ctk_cdi_coerce_yaml_scalars(json_t *doc)
{
        coerce_object(doc, spec_fields);
}
