/* core/json: the JSON helpers beside jansson, which reads and writes every
 * JSON document of the toolkit.  Owns the one small writer (text.h: a
 * growable buffer and string escaping, for the large outputs written
 * without building jansson values: an OCI spec, runc's log lines), the
 * position finder that turns a path in a parsed document into
 * file:line:column for messages (locate.h), and jansson conveniences
 * (util.h).  Uses core/base. */
#ifndef CTK_JSON_H
#define CTK_JSON_H

#include "locate.h"
#include "text.h"
#include "util.h"

#endif
