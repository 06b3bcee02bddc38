/* Shared by the libFuzzer harnesses (fuzz/fuzz_NAME.c): the input as a C string. */
#ifndef CTK_FUZZ_H
#define CTK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data as a NUL-terminated copy (the caller frees it). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
        char *s = malloc(size + 1);
        if (s == NULL)
                abort();
        memcpy(s, data, size);
        s[size] = '\0';
        return s;
}

/* A disagreement between two readers of the same input: a crash, so the
 * fuzzer keeps the input. */
#define FUZZ_ASSERT(cond)                                                                                              \
        do {                                                                                                           \
                if (!(cond))                                                                                           \
                        __builtin_trap();                                                                              \
        } while (0)

#endif
