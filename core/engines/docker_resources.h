/* The Swarm generic resources of Docker's daemon.json: node-generic-resources,
 * an array of "KIND=VALUE" strings (dockerd trims blanks around KIND and
 * VALUE), read by dockerd only when it starts.  `amd-ctk runtime configure
 * --swarm-resources` owns the entries of one kind and keeps every other
 * entry (another vendor's, a custom kind) where it is. */
#ifndef CTK_DOCKER_RESOURCES_H
#define CTK_DOCKER_RESOURCES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/base/base.h"

/* node-generic-resources is absent or an array of strings; otherwise one
 * error "NAME:LINE:COLUMN: what", the position found in text. */
int ctk_docker_resources_check(const json_t *doc, const char *text, size_t len, const char *name,
                               struct ctk_error **err);

/* Appends the VALUE of each entry of kind, in order, to out. */
int ctk_docker_resources_get(const json_t *doc, const char *kind, struct ctk_strv *out, struct ctk_error **err);

/* Replaces the entries of kind by "KIND=VALUE" for each of the n values, at
 * the place of the first of them (at the end when there was none); n == 0
 * removes them, and the key when no entry is left.  *changed: whether doc
 * changed.  doc must have passed ctk_docker_resources_check. */
int ctk_docker_resources_set(json_t *doc, const char *kind, char *const *values, size_t n, bool *changed,
                             struct ctk_error **err);

#endif
