/* Strict reading of JSON values for the profile loader: every error names
 * the file and the JSON location ("gpus[2].partition.xcds"). */
#ifndef CTK_FAKEFS_PROFILE_JSON_H
#define CTK_FAKEFS_PROFILE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/base/base.h"

struct ctk_pj {
        const char *file;
        struct ctk_error **err;
};

/* Sets *c->err to "FILE: where: message" and returns -1. */
int ctk_pj_fail(struct ctk_pj *c, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "where.key" or "where[i]" (owned; NULL on ENOMEM). */
char *ctk_pj_at(const char *where, const char *key);
char *ctk_pj_at_index(const char *where, size_t i);

/* Rejects keys not in known (NULL-terminated). */
int ctk_pj_check_keys(struct ctk_pj *c, json_t *obj, const char *where, const char *const *known);
int ctk_pj_object(struct ctk_pj *c, json_t *v, const char *where);

/* Each reads obj[key]; a missing (or null, when allowed) key leaves *out
 * untouched and sets *present = false when present != NULL; required keys
 * fail instead. */
int ctk_pj_string(struct ctk_pj *c, json_t *obj, const char *where, const char *key, bool required, const char **out);
int ctk_pj_bool(struct ctk_pj *c, json_t *obj, const char *where, const char *key, bool *out);
/* A non-negative integer <= max (JSON number). */
int ctk_pj_uint(struct ctk_pj *c, json_t *obj, const char *where, const char *key, bool required, uint64_t max,
                uint64_t *out, bool *present);
/* A hexadecimal string "0x1002" (or a JSON number) <= max. */
int ctk_pj_hex(struct ctk_pj *c, json_t *obj, const char *where, const char *key, uint64_t max, uint64_t *out,
               bool *present);
/* A 64-bit id: "0x..." hex string, decimal string or JSON number. */
int ctk_pj_u64_id(struct ctk_pj *c, json_t *obj, const char *where, const char *key, uint64_t *out, bool *present);
/* Permission bits as an octal string ("0660"). */
int ctk_pj_mode(struct ctk_pj *c, json_t *obj, const char *where, const char *key, mode_t *out);

#endif
