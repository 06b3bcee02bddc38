/* amd-ctk runtime configure --swarm-resources / --swarm-refresh: Docker
 * Swarm's node-generic-resources from the GPUs found, one entry per GPU or
 * partition (core/device/resource_id.h for the ids, core/engines for the
 * edit), and the record of what was written, in the state directory:
 *
 *   {"config-path": "/etc/docker/daemon.json", "kind": "AMD_GPU",
 *    "ids": "uuid", "values": ["0x...", ...]}
 *
 * --swarm-refresh (the refresh service, after a repartition) rewrites the
 * entries only while the file still holds what the record says we wrote:
 * entries edited or removed by hand are left alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "runtime_configure.h"
#include "core/base/base.h"
#include "core/config/config.h"
#include "core/device/device.h"
#include "core/engines/engines.h"
#include "core/json/json.h"
#include "core/tracker/tracker.h"

#define RECORD_NAME "swarm-resources.json"

static int record_path(struct ctk_cli *cli, struct swarm_plan *p, struct ctk_error **err)
{
        if (p->record != NULL)
                return 0;
        if (ctk_cli_config(cli, &p->cfg, err) < 0 || ctk_cli_state_dir(cli, &p->state_dir, err) < 0)
                return -1;
        if (asprintf(&p->record, "%s/" RECORD_NAME, p->state_dir) < 0) {
                p->record = NULL;
                return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

static int bad_record(const char *path, const char *what, struct ctk_error **err)
{
        return ctk_error_set(err, EINVAL, "%s: %s; remove it and run amd-ctk runtime configure --swarm-resources again",
                             CTK_CUT(path), CTK_CUT(what));
}

/* The record names the file that root rewrites: it is kept only in a state
 * directory root's alone, as the tracker's state (a missing one: no record). */
static int check_dir(const struct swarm_plan *p, struct ctk_error **err)
{
        if (ctk_tracker_dir_check(p->state_dir, err) == 0)
                return 0;
        if ((*err)->code == ENOENT) {
                ctk_error_free(ctk_steal(err));
                return 0;
        }
        return -1;
}

/* Reads the record at p->record into p; *found false when there is none. */
static int read_record(struct swarm_plan *p, bool *found, struct ctk_error **err)
{
        *found = false;
        if (check_dir(p, err) < 0)
                return ctk_error_prefix(err, "cannot read the Swarm resources' record");
        _cleanup_free_ char *text = NULL;
        size_t len;
        if (ctk_file_read(p->record, CTK_FILE_MAX, CTK_READ_NOFOLLOW, &text, &len, err) < 0) {
                if ((*err)->code != ENOENT)
                        return -1;
                ctk_error_free(ctk_steal(err));
                return 0;
        }
        json_error_t jerr;
        _cleanup_json_ json_t *r = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (r == NULL)
                return bad_record(p->record, jerr.text, err);
        const char *path = NULL, *kind = NULL, *ids = NULL;
        json_t *values = NULL, *e;
        size_t i;
        if (json_unpack(r, "{s:s, s:s, s:s, s:o}", "config-path", &path, "kind", &kind, "ids", &ids, "values",
                        &values) < 0 ||
            !json_is_array(values) || path[0] != '/' || !ctk_config_kind_valid(kind) ||
            (strcmp(ids, "uuid") != 0 && strcmp(ids, "index") != 0))
                return bad_record(p->record, "not a record of runtime configure --swarm-resources", err);
        json_array_foreach(values, i, e)
        {
                if (!json_is_string(e))
                        return bad_record(p->record, "its values must be strings", err);
                if (ctk_strv_push(&p->wrote, json_string_value(e)) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        if ((p->config_path = strdup(path)) == NULL || (p->kind_copy = strdup(kind)) == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        p->kind = p->kind_copy;
        p->by_index = strcmp(ids, "index") == 0;
        *found = true;
        return 0;
}

int ctk_runtime_swarm_prepare_refresh(struct ctk_cli *cli, struct swarm_plan *p, bool *found, struct ctk_error **err)
{
        *found = false;
        return record_path(cli, p, err) < 0 ? -1 : read_record(p, found, err);
}

/* One id per GPU or partition found, in index order. */
static int discover_ids(struct ctk_cli *cli, struct swarm_plan *p, struct ctk_error **err)
{
        _cleanup_backend_ struct ctk_backend *b = NULL;
        _cleanup_gpu_list_ struct ctk_gpu_list gpus = {0};
        if (ctk_cli_open_backend(cli, &b, err) < 0)
                return -1;
        if (ctk_discover_gpus(b, &gpus, err) < 0) {
                if ((*err)->code != ENODEV)
                        return ctk_error_prefix(err, "cannot list the GPUs for the Swarm resources");
                /* a node without the driver offers no GPUs */
                ctk_error_free(ctk_steal(err));
                p->no_driver = true;
        }
        for (size_t i = 0; i < gpus.n; i++) {
                char *id;
                if (ctk_resource_id_format(&gpus, i, p->by_index ? CTK_RESOURCE_ID_INDEX : CTK_RESOURCE_ID_UUID, &id,
                                           err) < 0)
                        return ctk_error_prefix(err, "cannot name the GPUs for Swarm by UUID "
                                                     "(--swarm-resource-ids index names them by index)");
                if (ctk_strv_push_take(&p->want, id) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        }
        return 0;
}

int ctk_runtime_swarm_apply(struct ctk_cli *cli, const struct configure_opts *o, struct swarm_plan *p, json_t *doc,
                            const char *text, size_t len, const char *name, struct ctk_error **err)
{
        if (!o->swarm_refresh) {
                p->kind = o->swarm_kind;
                p->by_index = o->swarm_ids != NULL && strcmp(o->swarm_ids, "index") == 0;
        }
        if (record_path(cli, p, err) < 0 || ctk_docker_resources_check(doc, text, len, name, err) < 0 ||
            ctk_docker_resources_get(doc, p->kind, &p->had, err) < 0)
                return -1;
        if (o->swarm_refresh && !ctk_strv_equal(&p->had, &p->wrote)) {
                p->left_alone = true;
                return 0;
        }
        if (!o->remove && discover_ids(cli, p, err) < 0)
                return -1;
        return ctk_docker_resources_set(doc, p->kind, p->want.v, p->want.n, &p->changed, err);
}

/* The path made absolute (the record is read from any directory). */
static char *absolute(const char *path)
{
        if (path[0] == '/')
                return strdup(path);
        _cleanup_free_ char *cwd = getcwd(NULL, 0);
        char *out = NULL;
        if (cwd == NULL || asprintf(&out, "%s/%s", cwd, path) < 0)
                return NULL;
        return out;
}

int ctk_runtime_swarm_record(const struct configure_opts *o, const struct swarm_plan *p, const char *path,
                             struct ctk_error **err)
{
        if (o->remove) {
                /* only a record of this file and kind */
                struct swarm_plan r = {.record = strdup(p->record), .cfg = p->cfg, .state_dir = p->state_dir};
                bool found = false;
                _cleanup_free_ char *abs = absolute(path);
                if (r.record == NULL || abs == NULL || read_record(&r, &found, err) < 0) {
                        ctk_runtime_swarm_clear(&r);
                        return *err != NULL ? -1 : ctk_error_set(err, ENOMEM, "out of memory");
                }
                bool ours = found && strcmp(r.config_path, abs) == 0 && strcmp(r.kind, p->kind) == 0;
                ctk_runtime_swarm_clear(&r);
                if (ours && unlink(p->record) < 0 && errno != ENOENT)
                        return ctk_error_errno(err, errno, "cannot remove %s", CTK_CUT(p->record));
                return 0;
        }
        _cleanup_free_ char *abs = absolute(path);
        _cleanup_json_ json_t *values = json_array();
        if (abs == NULL || values == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; i < p->want.n; i++)
                if (json_array_append_new(values, json_string(p->want.v[i])) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
        _cleanup_json_ json_t *r = json_pack("{s:s, s:s, s:s, s:O}", "config-path", abs, "kind", p->kind, "ids",
                                             p->by_index ? "index" : "uuid", "values", values);
        _cleanup_free_ char *text = r != NULL ? json_dumps(r, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        _cleanup_free_ char *line = NULL;
        if (text == NULL || asprintf(&line, "%s\n", text) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        if (ctk_tracker_dir_make(p->state_dir, err) < 0 ||
            ctk_file_write_atomic_flags(p->record, line, strlen(line), 0644, CTK_WRITE_FORCE_MODE | CTK_WRITE_TRUSTED,
                                        err) < 0)
                return ctk_error_prefix(err, "cannot record the Swarm resources written");
        return 0;
}

/* Whether the runtime reads DOCKER_RESOURCE_<kind> (it ignores case). */
static bool kind_read(const struct ctk_config *cfg, const char *kind)
{
        for (size_t i = 0; i < cfg->resource_kinds.n; i++)
                if (strcasecmp(cfg->resource_kinds.v[i], kind) == 0)
                        return true;
        return false;
}

void ctk_runtime_swarm_report(const struct configure_opts *o, const struct swarm_plan *p, const json_t *doc)
{
        if (p->left_alone) {
                printf("Left the %s entries of node-generic-resources as they are: they are no longer those "
                       "amd-ctk wrote (run amd-ctk runtime configure --swarm-resources=%s to replace them)\n",
                       p->kind, p->kind);
                return;
        }
        if (o->remove) {
                if (p->changed)
                        printf("Removed the %zu %s entries of node-generic-resources\n", p->had.n, p->kind);
                return;
        }
        if (p->changed)
                printf("Wrote %zu %s entries to node-generic-resources (%s ids; %zu before)\n", p->want.n, p->kind,
                       p->by_index ? "index" : "uuid", p->had.n);
        else if (p->want.n > 0)
                printf("The %s entries of node-generic-resources are up to date (%zu)\n", p->kind, p->want.n);
        if (p->want.n == 0)
                printf("No AMD GPU found%s: this node offers no %s to Swarm\n",
                       p->no_driver ? " (the amdgpu driver is not loaded)" : "", p->kind);
        if (o->swarm_refresh)
                return;
        const char *d = ctk_docker_default_runtime(doc);
        if (d == NULL || strcmp(d, RUNTIME_NAME) != 0)
                printf("Note: Swarm tasks get GPUs through the default runtime only: add --set-as-default "
                       "(default-runtime is %s%s%s)\n",
                       d != NULL ? "\"" : "", d != NULL ? d : "not set", d != NULL ? "\"" : "");
        if (p->cfg != NULL && !kind_read(p->cfg, p->kind)) {
                _cleanup_free_ char *kinds = ctk_strv_join(&p->cfg->resource_kinds, ", ");
                printf("Note: the runtime reads DOCKER_RESOURCE_<KIND> for the kinds of the resource-kinds "
                       "setting only (%s): add %s there\n",
                       kinds != NULL ? kinds : "", p->kind);
        }
}

void ctk_runtime_swarm_clear(struct swarm_plan *p)
{
        ctk_strv_clear(&p->want);
        ctk_strv_clear(&p->had);
        ctk_strv_clear(&p->wrote);
        free(p->record);
        free(p->config_path);
        free(p->kind_copy);
        *p = (struct swarm_plan){0};
}
