/* Reading and strictly parsing a CDI spec file: JSON, or YAML by the
 * file's extension (yaml.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"

void ctk_cdi_doc_clear(struct ctk_cdi_doc *d)
{
        free(d->path);
        free(d->text);
        json_decref(d->root);
        *d = (struct ctk_cdi_doc){0};
}

bool ctk_cdi_is_yaml_name(const char *file)
{
        size_t n = file != NULL ? strlen(file) : 0;
        return (n >= 5 && strcmp(file + n - 5, ".yaml") == 0) || (n >= 4 && strcmp(file + n - 4, ".yml") == 0);
}

static int parse_yaml(struct ctk_cdi_doc *doc, struct ctk_cdi_report *rep, struct ctk_error **err)
{
        char *problem = NULL;
        if (ctk_cdi_yaml_to_json(doc->path, doc->text, doc->len, &doc->root, &problem) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        ctk_cdi_report_push(&rep->errors, problem);
        if (doc->root != NULL)
                ctk_cdi_coerce_yaml_scalars(doc->root);
        return 0;
}

/* Parses text (len bytes, NUL-terminated, owned: taken) into *doc. */
static int parse_owned(const char *file, char *text, size_t len, struct ctk_cdi_doc *doc, struct ctk_cdi_report *rep,
                       struct ctk_error **err)
{
        *doc = (struct ctk_cdi_doc){.text = text, .len = len};
        doc->path = strdup(file != NULL ? file : "-");
        if (doc->path == NULL) {
                ctk_cdi_doc_clear(doc);
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        doc->yaml = ctk_cdi_is_yaml_name(file);
        if (doc->yaml)
                return parse_yaml(doc, rep, err);
        json_error_t jerr;
        doc->root = json_loadb(doc->text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (doc->root == NULL) {
                char *line = NULL;
                if (asprintf(&line, "%s:%d:%d: %s", doc->path, jerr.line > 0 ? jerr.line : 1,
                             jerr.column > 0 ? jerr.column : 1, jerr.text) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                ctk_cdi_report_push(&rep->errors, line);
        }
        return 0;
}

int ctk_cdi_parse(const char *file, const char *text, size_t len, struct ctk_cdi_doc *doc, struct ctk_cdi_report *rep,
                  struct ctk_error **err)
{
        *doc = (struct ctk_cdi_doc){0};
        char *copy = malloc(len + 1);
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        memcpy(copy, text, len);
        copy[len] = '\0';
        return parse_owned(file, copy, len, doc, rep, err);
}

int ctk_cdi_load(const char *path, struct ctk_cdi_doc *doc, struct ctk_cdi_report *rep, struct ctk_error **err)
{
        char *text = NULL;
        size_t len = 0;
        *doc = (struct ctk_cdi_doc){0};
        if (ctk_file_read(path, CTK_CDI_SPEC_MAX, 0, &text, &len, err) < 0)
                return -1;
        return parse_owned(path, text, len, doc, rep, err);
}

int ctk_cdi_load_trusted(const char *path, struct ctk_cdi_doc *doc, struct ctk_cdi_report *rep, struct ctk_error **err)
{
        char *text = NULL;
        size_t len = 0;
        *doc = (struct ctk_cdi_doc){0};
        if (ctk_file_read_trusted(path, CTK_CDI_SPEC_MAX, &text, &len, err) < 0)
                return -1;
        return parse_owned(path, text, len, doc, rep, err);
}

struct ctk_cdi_source ctk_cdi_doc_source(const struct ctk_cdi_doc *d)
{
        return (struct ctk_cdi_source){.file = d->path, .text = d->yaml ? NULL : d->text, .len = d->yaml ? 0 : d->len};
}
