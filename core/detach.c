#include "detach.h"

#include <fcntl.h>
#include <unistd.h>

void ctk_stdio_to_null(void)
{
        int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        for (int i = 0; i < 3; i++)
                if (fd < 0 || dup2(fd, i) < 0)
                        close(i);
        if (fd > 2)
                close(fd);
}
