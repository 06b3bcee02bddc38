/* The literals of a spec's text that jansson cannot keep (spec.h), set
 * aside before it parses the text: each becomes the placeholder string
 * "\u0001<index>", and the substitutions are kept to map a position in the
 * new text back to the spec's. */
#include "spec_literals.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/json.h"

static int hex4(const char *s)
{
        int v = 0;
        for (int i = 0; i < 4; i++) {
                char c = s[i];
                int d = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                               : -1;
                if (d < 0)
                        return -1;
                v = v * 16 + d;
        }
        return v;
}

/* The string token at s[i] (a '"'): its end (past the closing quote) in
 * *end.  1 when jansson cannot keep it but Go's decoder takes it: "\u0000"
 * in it, a surrogate escape without its pair, bytes that are not UTF-8 (Go
 * reads U+FFFD for both), or it starts with U+0001, the placeholders' mark
 * (so that every string starting so in the parsed document is one); 0 when
 * jansson keeps it; -1 when it is no JSON string at all (left to jansson's
 * message). */
static int string_token(const char *s, size_t len, size_t i, size_t *end)
{
        bool set_aside = len - i > 7 && memcmp(s + i + 1, "\\u0001", 6) == 0;
        const unsigned char *u = (const unsigned char *)s;
        for (size_t j = i + 1; j < len;) {
                unsigned char c = u[j];
                if (c == '"') {
                        *end = j + 1;
                        return set_aside;
                }
                if (c < 0x20)
                        return -1;
                if (c >= 0x80) {
                        size_t n = ctk_utf8_len(u + j, len - j);
                        set_aside = set_aside || n == 0;
                        j += n > 0 ? n : 1;
                        continue;
                }
                if (c != '\\') {
                        j++;
                        continue;
                }
                if (j + 1 >= len)
                        return -1;
                if (strchr("\"\\/bfnrt", s[j + 1]) != NULL && s[j + 1] != '\0') {
                        j += 2;
                        continue;
                }
                int cp = s[j + 1] == 'u' && len - j >= 6 ? hex4(s + j + 2) : -1;
                if (cp < 0)
                        return -1;
                j += 6;
                if (cp >= 0xd800 && cp <= 0xdbff) { /* a high surrogate: its low one must follow */
                        int lo = len - j >= 6 && s[j] == '\\' && s[j + 1] == 'u' ? hex4(s + j + 2) : -1;
                        if (lo >= 0xdc00 && lo <= 0xdfff)
                                j += 6;
                        else
                                set_aside = true;
                } else if (cp == 0 || (cp >= 0xdc00 && cp <= 0xdfff)) {
                        set_aside = true;
                }
        }
        return -1;
}

/* The number token at s[i] (a '-' or a digit) as JSON's grammar reads it:
 * its end in *end.  1 when jansson would not write it back as it is (a
 * fraction or an exponent, -0, an integer outside int64), 0 when it
 * would, -1 when it is no JSON number (left to jansson). */
static int number_token(const char *s, size_t len, size_t i, size_t *end)
{
        size_t j = i;
        bool negative = s[j] == '-';
        if (negative)
                j++;
        size_t digits = j;
        if (j < len && s[j] == '0')
                j++;
        else
                while (j < len && s[j] >= '0' && s[j] <= '9')
                        j++;
        if (j == digits)
                return -1;
        size_t ndigits = j - digits;
        bool integer = true;
        if (j < len && s[j] == '.') {
                integer = false;
                size_t k = ++j;
                while (j < len && s[j] >= '0' && s[j] <= '9')
                        j++;
                if (j == k)
                        return -1;
        }
        if (j < len && (s[j] == 'e' || s[j] == 'E')) {
                integer = false;
                j++;
                if (j < len && (s[j] == '+' || s[j] == '-'))
                        j++;
                size_t k = j;
                while (j < len && s[j] >= '0' && s[j] <= '9')
                        j++;
                if (j == k)
                        return -1;
        }
        *end = j;
        if (!integer || (negative && ndigits == 1 && s[digits] == '0'))
                return 1;
        if (ndigits != 19)
                return ndigits > 19;
        /* 19 digits: INT64_MAX is 9223372036854775807, INT64_MIN -...808 */
        int c = memcmp(s + digits, "9223372036854775807", 19);
        return negative ? c > 0 && memcmp(s + digits, "9223372036854775808", 19) != 0 : c > 0;
}

void ctk_oci_literals_clear(struct ctk_oci_literals *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i].text);
        free(l->v);
        *l = (struct ctk_oci_literals){0};
}

void ctk_oci_subs_clear(struct ctk_oci_subs *s)
{
        free(s->v);
        *s = (struct ctk_oci_subs){0};
}

/* Sets s[start..end) aside: the literal kept, its placeholder written. */
static int set_aside(const char *s, size_t start, size_t end, struct ctk_json_out *o, struct ctk_oci_literals *lits,
                     struct ctk_oci_subs *subs)
{
        if (lits->n == lits->cap) {
                size_t cap = lits->cap ? lits->cap * 2 : 8;
                struct ctk_oci_literal *v = realloc(lits->v, cap * sizeof(*v));
                struct ctk_oci_sub *w = realloc(subs->v, cap * sizeof(*w));
                if (v != NULL)
                        lits->v = v;
                if (w != NULL)
                        subs->v = w;
                if (v == NULL || w == NULL)
                        return -1;
                lits->cap = cap;
        }
        char *text = strndup(s + start, end - start);
        if (text == NULL)
                return -1;
        char ph[32];
        int n = snprintf(ph, sizeof(ph), "\"\\u0001%zu\"", lits->n);
        subs->v[lits->n] =
            (struct ctk_oci_sub){.at = o->n, .len = (size_t)n, .orig_at = start, .orig_len = end - start};
        subs->n = lits->n + 1;
        lits->v[lits->n++] = (struct ctk_oci_literal){.text = text};
        ctk_json_out_put(o, ph, (size_t)n);
        return o->failed ? -1 : 0;
}

int ctk_oci_literals_set_aside(const char *s, size_t len, char **out, size_t *out_len, struct ctk_oci_literals *lits,
                               struct ctk_oci_subs *subs)
{
        struct ctk_json_out o = {0};
        size_t copied = 0; /* s[0..copied) is in o (once there is a first literal) */
        for (size_t i = 0; i < len;) {
                char c = s[i];
                size_t end = i + 1;
                int r = 0;
                if (c == '"')
                        r = string_token(s, len, i, &end);
                else if (c == '-' || (c >= '0' && c <= '9'))
                        r = number_token(s, len, i, &end);
                if (r < 0) /* jansson will say what is wrong, where */
                        break;
                if (r > 0) {
                        ctk_json_out_put(&o, s + copied, i - copied);
                        if (set_aside(s, i, end, &o, lits, subs) < 0) {
                                free(o.p);
                                return -1;
                        }
                        copied = end;
                }
                i = end;
        }
        if (lits->n == 0) {
                *out = NULL;
                return 0;
        }
        ctk_json_out_put(&o, s + copied, len - copied);
        *out = ctk_json_out_finish(&o, out_len);
        return *out != NULL ? 0 : -1;
}

size_t ctk_oci_subs_orig(const struct ctk_oci_subs *subs, size_t at)
{
        size_t delta_from = 0, orig = 0;
        for (size_t i = 0; i < subs->n; i++) {
                const struct ctk_oci_sub *x = &subs->v[i];
                if (at < x->at)
                        break;
                if (at < x->at + x->len) /* inside a placeholder: at its literal's start or end */
                        return x->orig_at + (at - x->at < x->orig_len ? at - x->at : x->orig_len);
                delta_from = x->at + x->len;
                orig = x->orig_at + x->orig_len;
        }
        return orig + (at - delta_from);
}
