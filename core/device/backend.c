#include "backend.h"

#include <stdlib.h>

void ctk_backend_free(struct ctk_backend *b)
{
        if (b == NULL)
                return;
        if (b->ops != NULL && b->ops->destroy != NULL)
                b->ops->destroy(b->ctx);
        free(b->description);
        free(b);
}
