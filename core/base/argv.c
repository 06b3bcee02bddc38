#include "argv.h"

#include <string.h>

bool ctk_argv_wants_help(int argc, char **argv)
{
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--") == 0)
                        return false;
                if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
                        return true;
        }
        return false;
}

const char *ctk_argv_option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
        size_t len = strlen(name);
        if (strncmp(argv[*i], name, len) != 0)
                return NULL;
        if (argv[*i][len] == '=' && name[1] == '-')
                return argv[*i] + len + 1;
        if (argv[*i][len] != '\0')
                return NULL;
        if (*i + 1 >= argc) {
                *missing = true;
                return NULL;
        }
        return argv[++*i];
}
