#include "backends/fakefs/faults.h"

#include <errno.h>
#include <inttypes.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/base.h"

enum rule_kind { RULE_EIO, RULE_ENOENT, RULE_DELAY, RULE_HUGE };

struct rule {
        enum rule_kind kind;
        unsigned int delay_ms;
        uint64_t size; /* RULE_HUGE */
        char *glob;
};

struct ctk_fakefs_faults {
        struct ctk_fakefs_host *host;
        pthread_rwlock_t lock;
        struct rule *rules;
        size_t n, cap;
};

int ctk_fakefs_faults_new(struct ctk_fakefs_host *host, struct ctk_fakefs_faults **out, struct ctk_error **err)
{
        struct ctk_fakefs_faults *f = calloc(1, sizeof(*f));
        if (f == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        f->host = ctk_fakefs_host_ref(host);
        pthread_rwlock_init(&f->lock, NULL);
        *out = f;
        return 0;
}

static void clear_rules(struct ctk_fakefs_faults *f)
{
        for (size_t i = 0; i < f->n; i++)
                free(f->rules[i].glob);
        f->n = 0;
}

void ctk_fakefs_faults_free(struct ctk_fakefs_faults *f)
{
        if (f == NULL)
                return;
        clear_rules(f);
        free(f->rules);
        pthread_rwlock_destroy(&f->lock);
        ctk_fakefs_host_unref(f->host);
        free(f);
}

static int add_rule(struct ctk_fakefs_faults *f, enum rule_kind kind, unsigned int delay, uint64_t size,
                    const char *glob, struct ctk_error **err)
{
        char *g = strdup(glob);
        if (g == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        pthread_rwlock_wrlock(&f->lock);
        if (f->n == f->cap) {
                size_t cap = f->cap ? f->cap * 2 : 8;
                struct rule *v = realloc(f->rules, cap * sizeof(*v));
                if (v == NULL) {
                        pthread_rwlock_unlock(&f->lock);
                        free(g);
                        return ctk_error_set(err, ENOMEM, "out of memory");
                }
                f->rules = v;
                f->cap = cap;
        }
        f->rules[f->n++] = (struct rule){kind, delay, size, g};
        pthread_rwlock_unlock(&f->lock);
        /* cppcheck-suppress memleak ; g is owned by f->rules from here on */
        return 0;
}

/* Splits a line into at most 4 words (in place); returns the word count. */
static size_t split(char *line, char *words[4])
{
        size_t n = 0;
        char *save = NULL;
        for (char *w = strtok_r(line, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
                if (n == 4)
                        return 5;
                words[n++] = w;
        }
        return n;
}

static int parse_delay(const char *s, unsigned int *out)
{
        uint64_t v;
        if (ctk_parse_u64_dec(s, strlen(s), CTK_FAKEFS_MAX_DELAY_MS, &v) < 0)
                return -1;
        *out = (unsigned int)v;
        return 0;
}

static int apply_line(struct ctk_fakefs_faults *f, char *line, const char *where, size_t lineno, struct ctk_error **err)
{
        char *w[4];
        size_t n = split(line, w);
        if (n == 0 || w[0][0] == '#')
                return 0;
        unsigned int delay = 0;
        if (strcmp(w[0], "clear") == 0 && n == 1) {
                pthread_rwlock_wrlock(&f->lock);
                clear_rules(f);
                pthread_rwlock_unlock(&f->lock);
                _cleanup_strv_ struct ctk_strv gone = {0};
                if (ctk_fakefs_host_unplugged(f->host, &gone) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                for (size_t i = 0; i < gone.n; i++)
                        if (ctk_fakefs_host_plug(f->host, gone.v[i], err) < 0)
                                return -1;
                return 0;
        }
        if ((strcmp(w[0], "eio") == 0 || strcmp(w[0], "enoent") == 0) && n == 2 && w[1][0] == '/')
                return add_rule(f, w[0][1] == 'i' ? RULE_EIO : RULE_ENOENT, 0, 0, w[1], err);
        if (strcmp(w[0], "delay") == 0 && n == 3 && parse_delay(w[1], &delay) == 0 && w[2][0] == '/')
                return add_rule(f, RULE_DELAY, delay, 0, w[2], err);
        uint64_t size = 0;
        if (strcmp(w[0], "huge") == 0 && n == 3 &&
            ctk_parse_u64_dec(w[1], strlen(w[1]), CTK_FAKEFS_MAX_HUGE, &size) == 0 && w[2][0] == '/')
                return add_rule(f, RULE_HUGE, 0, size, w[2], err);
        if (strcmp(w[0], "unplug") == 0 && n == 2)
                return ctk_fakefs_host_unplug(f->host, w[1], err);
        if (strcmp(w[0], "plug") == 0 && n == 2)
                return ctk_fakefs_host_plug(f->host, w[1], err);
        return ctk_error_set(err, EINVAL,
                             "%s:%zu: expected \"eio GLOB\", \"enoent GLOB\", \"delay MS GLOB\" (MS up to %d), "
                             "\"huge BYTES GLOB\" (GLOB an absolute path pattern), \"unplug BDF\", \"plug BDF\" or "
                             "\"clear\"",
                             CTK_CUT(where), lineno, CTK_FAKEFS_MAX_DELAY_MS);
}

int ctk_fakefs_faults_apply(struct ctk_fakefs_faults *f, const char *text, const char *where, struct ctk_error **err)
{
        _cleanup_free_ char *copy = strdup(text);
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        size_t lineno = 0;
        char *next = copy;
        while (next != NULL) {
                char *line = next;
                char *nl = strchr(line, '\n');
                next = nl != NULL ? nl + 1 : NULL;
                if (nl != NULL)
                        *nl = '\0';
                lineno++;
                line[strcspn(line, "\r")] = '\0';
                if (apply_line(f, line, where, lineno, err) < 0)
                        return -1;
        }
        return 0;
}

int ctk_fakefs_faults_apply_file(struct ctk_fakefs_faults *f, const char *path, struct ctk_error **err)
{
        _cleanup_free_ char *text = NULL;
        if (ctk_file_read_all(path, &text, NULL, err) < 0)
                return ctk_error_prefix(err, "faults file");
        return ctk_fakefs_faults_apply(f, text, path, err);
}

char *ctk_fakefs_faults_list(struct ctk_fakefs_faults *f)
{
        char *s = NULL;
        size_t size = 0;
        FILE *out = open_memstream(&s, &size);
        if (out == NULL)
                return NULL;
        pthread_rwlock_rdlock(&f->lock);
        for (size_t i = 0; i < f->n; i++) {
                const struct rule *r = &f->rules[i];
                if (r->kind == RULE_DELAY)
                        fprintf(out, "delay %u %s\n", r->delay_ms, r->glob);
                else if (r->kind == RULE_HUGE)
                        fprintf(out, "huge %" PRIu64 " %s\n", r->size, r->glob);
                else
                        fprintf(out, "%s %s\n", r->kind == RULE_EIO ? "eio" : "enoent", r->glob);
        }
        pthread_rwlock_unlock(&f->lock);
        struct ctk_strv gone = {0};
        ctk_fakefs_host_unplugged(f->host, &gone);
        for (size_t i = 0; i < gone.n; i++)
                fprintf(out, "unplug %s\n", gone.v[i]);
        ctk_strv_clear(&gone);
        if (fclose(out) != 0) {
                free(s);
                return NULL;
        }
        return s;
}

int ctk_fakefs_faults_check(struct ctk_fakefs_faults *f, const char *path, bool content, unsigned int *delay_ms)
{
        int rc = 0;
        *delay_ms = 0;
        pthread_rwlock_rdlock(&f->lock);
        for (size_t i = 0; i < f->n; i++) {
                const struct rule *r = &f->rules[i];
                if (fnmatch(r->glob, path, FNM_PATHNAME) != 0)
                        continue;
                if (r->kind == RULE_DELAY && r->delay_ms > *delay_ms)
                        *delay_ms = r->delay_ms;
                else if (r->kind == RULE_ENOENT)
                        rc = ENOENT;
                else if (r->kind == RULE_EIO && content && rc == 0)
                        rc = EIO;
        }
        pthread_rwlock_unlock(&f->lock);
        return rc;
}

bool ctk_fakefs_faults_hidden(struct ctk_fakefs_faults *f, const char *path)
{
        bool hidden = false;
        pthread_rwlock_rdlock(&f->lock);
        for (size_t i = 0; i < f->n && !hidden; i++)
                hidden = f->rules[i].kind == RULE_ENOENT && fnmatch(f->rules[i].glob, path, FNM_PATHNAME) == 0;
        pthread_rwlock_unlock(&f->lock);
        return hidden;
}

bool ctk_fakefs_faults_any(struct ctk_fakefs_faults *f)
{
        pthread_rwlock_rdlock(&f->lock);
        bool any = f->n > 0;
        pthread_rwlock_unlock(&f->lock);
        return any;
}

uint64_t ctk_fakefs_faults_size(struct ctk_fakefs_faults *f, const char *path)
{
        uint64_t size = 0;
        pthread_rwlock_rdlock(&f->lock);
        for (size_t i = 0; i < f->n; i++)
                if (f->rules[i].kind == RULE_HUGE && fnmatch(f->rules[i].glob, path, FNM_PATHNAME) == 0)
                        size = f->rules[i].size;
        pthread_rwlock_unlock(&f->lock);
        return size;
}
