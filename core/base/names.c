#include "names.h"

#include <stddef.h>

const struct ctk_selection_variable ctk_selection_variables[] = {
    {CTK_VISIBLE_DEVICES, false},
    {CTK_RESOURCE_PREFIX, true},
    {NULL, false},
};
