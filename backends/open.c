#include "backends/open.h"
#include "backends/sysfs/sysfs.h"

#include <errno.h>
#include <stddef.h>

int ctk_backend_open(const char *root, const char *profile, struct ctk_backend **out, struct ctk_error **err)
{
        if (root != NULL && root[0] == '\0')
                root = NULL;
        if (profile != NULL && profile[0] == '\0')
                profile = NULL;
        if (root != NULL && profile != NULL)
                return ctk_error_set(err, EINVAL, "--root and --profile cannot be used together (choose one)");
        if (profile != NULL)
                return ctk_fakefs_backend_new(profile, out, err);
        return ctk_sysfs_backend_new(root != NULL ? root : "/", out, err);
}
