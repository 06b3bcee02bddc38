/* Generation of the CDI spec of the host's GPUs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdi.h"
#include "core/base/base.h"
#include "core/json/json.h"

void ctk_cdi_options_init(struct ctk_cdi_options *o)
{
        *o = (struct ctk_cdi_options){
            .vendor = CTK_CDI_DEFAULT_VENDOR,
            .class_ = CTK_CDI_DEFAULT_CLASS,
            .by_index = true,
        };
}

/* A device of the spec: its name and the edits of the device model. */
static json_t *device_json(const struct ctk_cdi_device *d, bool additional_gids, struct ctk_error **err)
{
        _cleanup_cdi_edits_ struct ctk_cdi_edits e = {0};
        if (ctk_cdi_device_edits(d, additional_gids, &e, err) < 0)
                return NULL;
        json_t *edits = ctk_cdi_edits_to_json(&e);
        return edits != NULL ? json_pack("{s:s, s:o}", "name", d->name, "containerEdits", edits) : NULL;
}

int ctk_cdi_spec_build(const struct ctk_cdi_host *h, const struct ctk_cdi_options *o, json_t **out,
                       struct ctk_error **err)
{
        *out = NULL;
        if (!ctk_cdi_vendor_valid(o->vendor))
                return ctk_error_set(err, EINVAL,
                                     "invalid CDI vendor \"%s\": must start with a letter, end with a letter or "
                                     "digit and contain only letters, digits, '_', '.' and '-'",
                                     CTK_CUT(o->vendor));
        if (!ctk_cdi_class_valid(o->class_))
                return ctk_error_set(err, EINVAL,
                                     "invalid CDI class \"%s\": must start with a letter, end with a letter or "
                                     "digit and contain only letters, digits, '_', '.' and '-'",
                                     CTK_CUT(o->class_));
        _cleanup_free_ char *kind = NULL;
        if (asprintf(&kind, "%s/%s", o->vendor, o->class_) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");

        struct ctk_cdi_device_list devs = {0};
        if (ctk_cdi_host_devices(h, o->by_index, o->by_uuid, &devs, err) < 0)
                return -1;
        _cleanup_json_ json_t *devices = json_array();
        int rc = devices != NULL ? 0 : ctk_error_set(err, ENOMEM, "out of memory");
        for (size_t i = 0; rc == 0 && i < devs.n; i++) {
                json_t *d = device_json(&devs.v[i], o->additional_gids, err);
                if (d == NULL || json_array_append_new(devices, d) < 0)
                        rc = ctk_error_set(err, ENOMEM, "out of memory");
        }
        ctk_cdi_device_list_clear(&devs);
        if (rc < 0)
                return -1;

        _cleanup_json_ json_t *spec = json_pack("{s:s, s:s, s:O}", "cdiVersion", "", "kind", kind, "devices", devices);
        if (spec == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        json_t *mounts = NULL;
        if (ctk_cdi_simhost_mounts(o->root, &mounts, err) < 0)
                return -1;
        if (mounts != NULL && json_object_set_new(spec, "containerEdits", json_pack("{s:o}", "mounts", mounts)) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");
        int min = ctk_cdi_min_version(spec, NULL);
        if (json_object_set_new(spec, "cdiVersion", json_string(ctk_cdi_versions[min])) < 0)
                return ctk_error_set(err, ENOMEM, "out of memory");

        /* Never hand out a spec that CDI loaders would reject. */
        _cleanup_cdi_report_ struct ctk_cdi_report rep = {0};
        if (ctk_cdi_check(spec, NULL, &rep) > 0) {
                ctk_error_set_msg(err, EINVAL, rep.errors.v[0]);
                return ctk_error_prefix(err, "generated CDI spec is invalid");
        }
        *out = ctk_steal(&spec);
        return 0;
}

char *ctk_cdi_spec_dump(const json_t *spec)
{
        _cleanup_free_ char *s = json_dumps(spec, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        char *out = NULL;
        if (s == NULL || asprintf(&out, "%s\n", s) < 0)
                return NULL;
        return out;
}
