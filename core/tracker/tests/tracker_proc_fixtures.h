/* Process helpers for the GPU tracker concurrency and crash tests. */
#ifndef CTK_TESTS_TRACKER_PROC_FIXTURES_H
#define CTK_TESTS_TRACKER_PROC_FIXTURES_H

#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tracker/tracker.h"
#include "tracker_fixtures.h"

/* A tracker in a fresh state directory, enabled on a 4-GPU host; the
 * fixture of the concurrency and crash tests (cmocka setup/teardown). */
struct fx {
        char *dir;
        struct ctk_gpu_list gpus;
        struct ctk_tracker *t;
};

static inline int fx_enabled_setup(void **state, int lock_timeout_ms)
{
        struct fx *f = calloc(1, sizeof(*f));
        f->dir = fx_tmpdir();
        fx_gpus(&f->gpus, 4);
        struct ctk_tracker_opts o = {.state_dir = f->dir, .lock_timeout_ms = lock_timeout_ms};
        bool changed;
        *state = f;
        if (ctk_tracker_new(&o, &f->t, NULL) < 0 || ctk_tracker_enable(f->t, &f->gpus, &changed, NULL) < 0)
                return -1;
        return 0;
}

static inline int fx_enabled_teardown(void **state)
{
        struct fx *f = *state;
        ctk_tracker_free(f->t);
        ctk_gpu_list_clear(&f->gpus);
        fx_rmtree(f->dir);
        free(f);
        return 0;
}

/* Memory shared with forked children. */
static inline void *fx_shared(size_t size)
{
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
}

/* Waits for a child; true if it exited with status 0. */
static inline bool fx_wait_ok(pid_t pid)
{
        int status;
        if (waitpid(pid, &status, 0) != pid)
                return false;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Checks what must hold in every state ever written: it parses, and no
 * exclusive GPU has more than one holder.  Returns a static message or NULL. */
static inline const char *fx_state_invariants(struct ctk_tracker *t)
{
        struct ctk_tracker_state st;
        bool missing;
        struct ctk_error *err = NULL;
        if (ctk_tracker_load(&t->paths, &st, &missing, &err) < 0) {
                static char msg[512];
                snprintf(msg, sizeof(msg), "%s", err->msg);
                ctk_error_free(err);
                return msg;
        }
        const char *bad = missing ? "state missing" : NULL;
        for (size_t i = 0; bad == NULL && i < st.ngpus; i++)
                if (st.gpus[i].access == CTK_TRACKER_EXCLUSIVE && ctk_tracker_state_count_holders(&st, i) > 1)
                        bad = "an exclusive GPU has two holders";
        ctk_tracker_state_clear(&st);
        return bad;
}

#endif
