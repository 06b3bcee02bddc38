/* Included before every unit test when clang-tidy checks it (make lint,
 * sim/tidy.sh): tells the analyzer what cmocka's header does not say, that
 * a failed assertion ends the test (cmocka jumps out of it), so that it
 * follows no path past one.  Never part of a build. */
#ifndef CTK_TIDY_CMOCKA_H
#define CTK_TIDY_CMOCKA_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define CTK_TIDY_CHECK(c) ((c) ? (void)0 : (_fail(__FILE__, __LINE__), __builtin_unreachable()))

#undef fail
#define fail() (_fail(__FILE__, __LINE__), __builtin_unreachable())
#undef assert_true
#define assert_true(c) CTK_TIDY_CHECK(c)
#undef assert_false
#define assert_false(c) CTK_TIDY_CHECK(!(c))
#undef assert_non_null
#define assert_non_null(c) CTK_TIDY_CHECK((c) != NULL)
#undef assert_null
#define assert_null(c) CTK_TIDY_CHECK((c) == NULL)
#undef assert_int_equal
#define assert_int_equal(a, b) CTK_TIDY_CHECK((a) == (b))
#undef assert_int_not_equal
#define assert_int_not_equal(a, b) CTK_TIDY_CHECK((a) != (b))
#undef assert_ptr_equal
#define assert_ptr_equal(a, b) CTK_TIDY_CHECK((const void *)(a) == (const void *)(b))
#undef assert_string_equal
#define assert_string_equal(a, b) CTK_TIDY_CHECK((a) != NULL && (b) != NULL && strcmp((a), (b)) == 0)

#endif
