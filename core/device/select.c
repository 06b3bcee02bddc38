/* The GPU selection grammar (see select.h).
 *
 * A value is, after trimming blanks:
 *   ""  | void            CTK_SELECT_UNSET (any case)
 *   none                  CTK_SELECT_NONE  (any case)
 *   TOKEN[,TOKEN]...      CTK_SELECT_LIST, where each trimmed TOKEN is
 *     all                 every GPU (any case; may appear inside a list)
 *     N                   decimal index, at most 8 digits, leading zeros allowed
 *     A-B                 inclusive range of indices (blanks around '-' allowed)
 *     0xHEX               UUID (KFD unique_id), any case, zero padding allowed
 *     HEX                 UUID written without 0x: more than 8 hex digits
 *     0xHEX:N | gpuN      a Swarm resource id (resource_id.h): partition N
 *                         of a GPU, device N
 *     vendor/class=NAME   a fully qualified CDI device name (a '/' before
 *                         the first '='): set aside for the CDI layer by
 *                         the *_names functions, an error for the others
 * Anything else, an empty TOKEN ("0,,1", "0,"), none/void inside a list, an
 * index or range end that does not exist and a UUID that matches no GPU is an
 * error naming the token.  Ranges are checked against the GPU count before
 * they are expanded. */
#include "select.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/base/base.h"
#include "resource_id.h"

/* Longest decimal token taken as an index; longer all-digit tokens are UUIDs
 * written without 0x (as the Go toolkit does). */
#define MAX_INDEX_DIGITS 8

struct token {
        const char *s; /* not NUL-terminated */
        size_t len;
};

static bool is_blank(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static struct token trim(const char *s, size_t len)
{
        while (len > 0 && is_blank(s[0])) {
                s++;
                len--;
        }
        while (len > 0 && is_blank(s[len - 1]))
                len--;
        return (struct token){s, len};
}

static bool token_is(struct token t, const char *word)
{
        return t.len == strlen(word) && strncasecmp(t.s, word, t.len) == 0;
}

static bool all_chars(struct token t, int (*pred)(int))
{
        if (t.len == 0)
                return false;
        for (size_t i = 0; i < t.len; i++)
                if (!pred((unsigned char)t.s[i]))
                        return false;
        return true;
}

/* Strict decimal; saturates at SIZE_MAX (any such index is out of range). */
static int parse_decimal(struct token t, size_t *out)
{
        if (!all_chars(t, isdigit))
                return -1;
        size_t v = 0;
        for (size_t i = 0; i < t.len; i++) {
                size_t d = (size_t)(t.s[i] - '0');
                if (v > (SIZE_MAX - d) / 10) {
                        *out = SIZE_MAX;
                        return 0;
                }
                v = v * 10 + d;
        }
        *out = v;
        return 0;
}

/* "this host has GPUs 0-3" and friends. */
static void describe_host(size_t n, char buf[64])
{
        if (n == 0)
                (void)snprintf(buf, 64, "this host has no AMD GPUs");
        else if (n == 1)
                (void)snprintf(buf, 64, "this host has GPU 0");
        else
                (void)snprintf(buf, 64, "this host has GPUs 0-%zu", n - 1);
}

static int select_index(struct token t, size_t n, bool *marks, struct ctk_error **err)
{
        size_t i;
        if (parse_decimal(t, &i) < 0)
                return ctk_error_set(err, EINVAL, "'%s' is not a GPU index", CTK_CUTN(t.s, t.len));
        if (i >= n) {
                char host[64];
                describe_host(n, host);
                return ctk_error_set(err, ENOENT, "GPU %s does not exist (%s)", CTK_CUTN(t.s, t.len), host);
        }
        marks[i] = true;
        return 0;
}

static int select_range(struct token t, size_t n, bool *marks, struct ctk_error **err)
{
        const char *dash = memchr(t.s, '-', t.len);
        struct token a = trim(t.s, (size_t)(dash - t.s));
        struct token b = trim(dash + 1, t.len - (size_t)(dash - t.s) - 1);
        size_t start, end;
        if (parse_decimal(a, &start) < 0 || parse_decimal(b, &end) < 0)
                return ctk_error_set(err, EINVAL, "invalid GPU range '%s' (expected START-END, e.g. 0-3)",
                                     CTK_CUTN(t.s, t.len));
        if (start > end)
                return ctk_error_set(err, EINVAL, "invalid GPU range '%s' (start is greater than end)",
                                     CTK_CUTN(t.s, t.len));
        if (end >= n) {
                char host[64];
                describe_host(n, host);
                if (start >= n)
                        return ctk_error_set(err, ENOENT, "GPUs %s do not exist (%s)", CTK_CUTN(t.s, t.len), host);
                return ctk_error_set(err, ENOENT, "GPU range %s goes past the last GPU (%s)", CTK_CUTN(t.s, t.len),
                                     host);
        }
        for (size_t i = start; i <= end; i++)
                marks[i] = true;
        return 0;
}

static int select_uuid(struct token t, const struct ctk_gpu_list *gpus, bool *marks, struct ctk_error **err)
{
        _cleanup_free_ char *s = strndup(t.s, t.len);
        if (s == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        uint64_t uuid;
        if (ctk_uuid_parse(s, &uuid) < 0)
                return ctk_error_set(err, EINVAL, "'%s' is not a valid GPU UUID (expected 0x and up to 16 hex digits)",
                                     CTK_CUT(s));
        const struct ctk_gpu *first = NULL;
        for (size_t i = 0; i < gpus->n; i++) {
                const struct ctk_gpu *g = &gpus->v[i];
                if (!g->has_uuid || g->uuid != uuid)
                        continue;
                /* Partitions of one GPU may share its id; distinct GPUs must not. */
                if (first != NULL && (first->pci == NULL || g->pci == NULL || strcmp(first->pci, g->pci) != 0))
                        return ctk_error_set(err, EINVAL,
                                             "UUID %s is ambiguous: GPUs %zu and %zu both report it; select them "
                                             "by index",
                                             CTK_CUT(s), first->index, g->index);
                if (first == NULL)
                        first = g;
                marks[i] = true;
        }
        if (first == NULL) {
                char host[64];
                describe_host(gpus->n, host);
                return ctk_error_set(err, ENOENT, "no GPU has UUID %s (%s; 'amd-ctk gpu list' shows their UUIDs)",
                                     CTK_CUT(s), host);
        }
        return 0;
}

static bool has_hex_prefix(struct token t)
{
        return t.len >= 2 && t.s[0] == '0' && (t.s[1] == 'x' || t.s[1] == 'X');
}

/* A fully qualified CDI name has the shape vendor/class=name: a '/'
 * before the first '='.  With names, it is set aside there for the CDI
 * layer to resolve; without, it has no meaning here. */
static int cdi_name(struct token t, struct ctk_strv *names, struct ctk_error **err)
{
        if (names == NULL)
                return ctk_error_set(err, EINVAL,
                                     "'%s' is a CDI device name: GPU indices, ranges and UUIDs select GPUs here",
                                     CTK_CUTN(t.s, t.len));
        _cleanup_free_ char *name = strndup(t.s, t.len);
        if (name == NULL || ctk_strv_push(names, name) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        return 0;
}

static int select_token(struct token t, const struct ctk_gpu_list *gpus, bool *marks, bool *plain,
                        struct ctk_strv *names, struct ctk_error **err)
{
        const char *eq = memchr(t.s, '=', t.len);
        if (eq != NULL && memchr(t.s, '/', (size_t)(eq - t.s)) != NULL)
                return cdi_name(t, names, err);
        *plain = true;
        if (ctk_resource_id_is(t.s, t.len)) {
                size_t i;
                if (ctk_resource_id_resolve(t.s, t.len, gpus, &i, err) < 0)
                        return -1;
                marks[i] = true;
                return 0;
        }
        if (token_is(t, "all")) {
                for (size_t i = 0; i < gpus->n; i++)
                        marks[i] = true;
                return 0;
        }
        if (token_is(t, "none") || token_is(t, "void"))
                return ctk_error_set(err, EINVAL, "'%s' cannot be combined with other entries", CTK_CUTN(t.s, t.len));
        if (has_hex_prefix(t))
                return select_uuid(t, gpus, marks, err);
        if (all_chars(t, isdigit))
                return t.len <= MAX_INDEX_DIGITS ? select_index(t, gpus->n, marks, err)
                                                 : select_uuid(t, gpus, marks, err);
        if (memchr(t.s, '-', t.len) != NULL)
                return select_range(t, gpus->n, marks, err);
        if (t.len > MAX_INDEX_DIGITS && all_chars(t, isxdigit))
                return select_uuid(t, gpus, marks, err);
        return ctk_error_set(
            err, EINVAL, "'%s' is not a GPU index, range or UUID (expected all, none, or a list like 0,2-3,0x<UUID>)",
            CTK_CUTN(t.s, t.len));
}

static int marks_to_selection(const bool *marks, size_t n, struct ctk_selection *out, struct ctk_error **err)
{
        size_t count = 0;
        for (size_t i = 0; i < n; i++)
                count += marks[i];
        size_t *idx = NULL;
        if (count > 0) {
                idx = calloc(count, sizeof(*idx));
                if (idx == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        for (size_t i = 0, k = 0; i < n; i++)
                if (marks[i])
                        idx[k++] = i; // NOLINT(clang-analyzer-core.NullDereference): a mark makes count > 0
        *out = (struct ctk_selection){.kind = CTK_SELECT_LIST, .idx = idx, .n = count};
        return 0;
}

int ctk_select_parse_names(const char *value, const struct ctk_gpu_list *gpus, struct ctk_selection *out,
                           struct ctk_strv *names, struct ctk_error **err)
{
        *out = (struct ctk_selection){.kind = CTK_SELECT_UNSET};
        struct token whole = trim(value != NULL ? value : "", value != NULL ? strlen(value) : 0);
        if (whole.len == 0 || token_is(whole, "void"))
                return 0;
        if (token_is(whole, "none")) {
                out->kind = CTK_SELECT_NONE;
                return 0;
        }
        /* One byte per GPU (at least one so calloc never returns NULL legitimately). */
        _cleanup_free_ bool *marks = calloc(gpus->n + 1, sizeof(*marks));
        if (marks == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const char *p = whole.s, *end = whole.s + whole.len;
        bool plain = false;
        for (;;) {
                const char *comma = memchr(p, ',', (size_t)(end - p));
                const char *stop = comma != NULL ? comma : end;
                struct token t = trim(p, (size_t)(stop - p));
                if (t.len == 0)
                        return ctk_error_set(err, EINVAL, "empty entry in GPU list '%s'", CTK_CUTN(whole.s, whole.len));
                if (select_token(t, gpus, marks, &plain, names, err) < 0)
                        return -1;
                if (comma == NULL)
                        break;
                p = comma + 1;
        }
        if (!plain) /* CDI names only */
                return 0;
        return marks_to_selection(marks, gpus->n, out, err);
}

int ctk_select_parse(const char *value, const struct ctk_gpu_list *gpus, struct ctk_selection *out,
                     struct ctk_error **err)
{
        return ctk_select_parse_names(value, gpus, out, NULL, err);
}

int ctk_select_merge(struct ctk_selection *a, const struct ctk_selection *b, struct ctk_error **err)
{
        if (b->kind == CTK_SELECT_UNSET)
                return 0;
        if (b->kind == CTK_SELECT_NONE) {
                if (a->kind == CTK_SELECT_UNSET)
                        a->kind = CTK_SELECT_NONE;
                return 0;
        }
        size_t *v = NULL;
        if (a->n + b->n > 0) {
                v = calloc(a->n + b->n, sizeof(*v));
                if (v == NULL)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        size_t i = 0, j = 0, k = 0;
        while (i < a->n || j < b->n) {
                size_t x;
                if (j >= b->n || (i < a->n && a->idx[i] < b->idx[j]))
                        x = a->idx[i++];
                else if (i >= a->n || b->idx[j] < a->idx[i])
                        x = b->idx[j++];
                else {
                        x = a->idx[i++];
                        j++;
                }
                v[k++] = x;
        }
        free(a->idx);
        a->idx = v;
        a->n = k;
        a->kind = CTK_SELECT_LIST;
        return 0;
}

void ctk_selection_clear(struct ctk_selection *s)
{
        free(s->idx);
        *s = (struct ctk_selection){.kind = CTK_SELECT_UNSET};
}

/* True if the NAME of "NAME=value" is one of the selection variables
 * (names.h): AMD_VISIBLE_DEVICES, or DOCKER_RESOURCE_<kind> for one of
 * kinds (compared ignoring case, as Docker upper-cases the kind in the
 * variable name). */
static bool is_selection_var(const char *entry, size_t name_len, const char *const *kinds)
{
        for (const struct ctk_selection_variable *v = ctk_selection_variables; v->name != NULL; v++) {
                size_t plen = strlen(v->name);
                if (!v->kinds) {
                        if (name_len == plen && strncmp(entry, v->name, plen) == 0)
                                return true;
                        continue;
                }
                if (kinds == NULL || name_len <= plen || strncmp(entry, v->name, plen) != 0)
                        continue;
                for (size_t k = 0; kinds[k] != NULL; k++)
                        if (strlen(kinds[k]) == name_len - plen &&
                            strncasecmp(entry + plen, kinds[k], name_len - plen) == 0)
                                return true;
        }
        return false;
}

int ctk_select_from_env_names(char *const *env, size_t nenv, const char *const *kinds, const struct ctk_gpu_list *gpus,
                              struct ctk_selection *out, struct ctk_strv *names, struct ctk_strv *vars,
                              struct ctk_error **err)
{
        *out = (struct ctk_selection){.kind = CTK_SELECT_UNSET};
        for (size_t i = 0; i < nenv; i++) {
                const char *e = env[i];
                const char *eq = e != NULL ? strchr(e, '=') : NULL;
                if (eq == NULL || !is_selection_var(e, (size_t)(eq - e), kinds))
                        continue;
                struct ctk_selection one;
                size_t before = names != NULL ? names->n : 0;
                if (ctk_select_parse_names(eq + 1, gpus, &one, names, err) < 0) {
                        ctk_selection_clear(out);
                        return ctk_error_prefix(err, "%s", CTK_CUTN(e, eq - e));
                }
                for (size_t k = before; vars != NULL && names != NULL && k < names->n; k++) {
                        _cleanup_free_ char *var = strndup(e, (size_t)(eq - e));
                        if (var == NULL || ctk_strv_push(vars, var) < 0) {
                                ctk_selection_clear(&one);
                                ctk_selection_clear(out);
                                return ctk_error_set(err, ENOMEM, "out of memory");
                        }
                }
                int r = ctk_select_merge(out, &one, err);
                ctk_selection_clear(&one);
                if (r < 0) {
                        ctk_selection_clear(out);
                        return -1;
                }
        }
        return 0;
}

int ctk_select_from_env(char *const *env, size_t nenv, const char *const *kinds, const struct ctk_gpu_list *gpus,
                        struct ctk_selection *out, struct ctk_error **err)
{
        return ctk_select_from_env_names(env, nenv, kinds, gpus, out, NULL, NULL, err);
}
