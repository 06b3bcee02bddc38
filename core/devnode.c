#include "devnode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ctk_devnode_stat(struct ctk_backend *b, const char *path, struct ctk_devnode *out, struct ctk_error **err)
{
        struct ctk_node_info info;
        struct ctk_error *serr = NULL;
        if (ctk_stat_node(b, path, &info, &serr) < 0) {
                int code = serr != NULL ? serr->code : EIO;
                if (code == ENOENT) {
                        ctk_error_free(serr);
                        return ctk_error_set(err, ENOENT, "device node %s does not exist", path);
                }
                ctk_error_set(err, code, "device node %s: %s", path, serr != NULL ? serr->msg : "stat failed");
                ctk_error_free(serr);
                return -1;
        }
        if (info.type != CTK_NODE_CHR && info.type != CTK_NODE_BLK)
                return ctk_error_set(err, ENODEV, "device node %s: not a character or block device", path);
        char *p = strdup(path);
        if (p == NULL)
                return ctk_error_set(err, ENOMEM, "device node %s: out of memory", path);
        *out = (struct ctk_devnode){
            .path = p,
            .type = info.type == CTK_NODE_CHR ? 'c' : 'b',
            .major = info.major,
            .minor = info.minor,
            .mode = info.mode,
            .uid = info.uid,
            .gid = info.gid,
        };
        return 0;
}

void ctk_devnode_clear(struct ctk_devnode *d)
{
        if (d == NULL)
                return;
        free(d->path);
        d->path = NULL;
}
