/* amd-ctk runtime configure: registers amd-container-runtime with Docker by
 * editing daemon.json (the editing itself is core/docker_config.c). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "runtime_configure.h"
#include "core/base/base.h"
#include "core/json/json.h"
#include "core/engines/engines.h"

#define DEFAULT_DOCKER_CONFIG "/etc/docker/daemon.json"

static const char configure_usage[] =
    "Usage: amd-ctk runtime configure [options]\n"
    "\n"
    "Configure a runtime to the container engine: adds the 'amd' runtime\n"
    "(amd-container-runtime) to Docker's daemon.json and enables CDI there\n"
    "(other settings and their order are kept; the previous file is saved as\n"
    "<config-path>.bak), or writes a drop-in file for containerd (and adds it\n"
    "to the imports of its config.toml), Podman or CRI-O.  Restart the engine\n"
    "afterwards (Podman needs no restart).  containerd's drop-in holds a copy of\n"
    "config.toml's CRI plugin section (containerd before 2.1 replaces that whole\n"
    "section with an imported one): after editing that section, run this again.\n"
    "\n"
    "Options:\n"
    "   --runtime NAME          docker, containerd, podman or crio (default: docker)\n"
    "   --config-path PATH      the file to write (default: " DEFAULT_DOCKER_CONFIG ";\n"
    "                           /etc/containerd/conf.d/99-amd.toml,\n"
    "                           /etc/containers/containers.conf.d/99-amd.conf,\n"
    "                           /etc/crio/crio.conf.d/99-amd.conf)\n"
    "   --containerd-config PATH  containerd's config.toml, which imports the drop-in\n"
    "                           (default: /etc/containerd/config.toml; created if missing)\n"
    "   --containerd-version N  its schema: 2 (containerd 1.x) or 3 (2.x); default: the\n"
    "                           version that file declares, else 2\n"
    "   --runtime-path PATH     the runtime executable Docker runs (default: " DEFAULT_RUNTIME_PATH ")\n"
    "   --runtime-arg ARG       an argument Docker passes to the runtime (runtimeArgs); repeatable\n"
    "   --cdi                   set features.cdi to true (the default): Docker 25 to 28.1 need it\n"
    "                           for --device amd.com/gpu=N; 28.2 and later have CDI on by default\n"
    "   --no-cdi                set features.cdi to false\n"
    "   --set-as-default        make amd the default runtime (alias --amd-set-as-default)\n"
    "   --unset-as-default      stop amd being the default runtime (alias --unset-amd-as-default)\n"
    "   --remove                remove the amd runtime (and amd as the default runtime); keeps\n"
    "                           features.cdi, which other CDI devices may need, and never\n"
    "                           touches /etc/cdi\n"
    "   --dry-run               print the resulting file instead of writing it\n"
    "   --help, -h              show this help\n";

static const char runtime_usage[] = "Usage: amd-ctk runtime configure [options]\n"
                                    "\n"
                                    "Commands:\n"
                                    "   configure   Configure a runtime to the container engine\n"
                                    "\n"
                                    "Run 'amd-ctk runtime configure --help' for its options.\n";

/* Matches argv[*i] against --name/-name with an optional "=value".
 * Returns 1 and sets *value (NULL when no "=") on a match. */
static int match(const char *arg, const char *name, const char **value)
{
        if (arg[0] != '-')
                return 0;
        arg += arg[1] == '-' ? 2 : 1;
        size_t n = strlen(name);
        if (strncmp(arg, name, n) != 0 || (arg[n] != '\0' && arg[n] != '='))
                return 0;
        *value = arg[n] == '=' ? arg + n + 1 : NULL;
        return 1;
}

static int bool_value(const char *opt, const char *value, bool *out)
{
        if (value == NULL || strcmp(value, "true") == 0) {
                *out = true;
                return 0;
        }
        if (strcmp(value, "false") == 0) {
                *out = false;
                return 0;
        }
        fprintf(stderr, "amd-ctk: option %s takes no value other than true or false (got '%s')\n", opt, value);
        return -1;
}

/* The boolean options; value NULL means --name or --name=true. */
static bool *bool_option(struct configure_opts *o, const char *arg, const char **value)
{
        if (match(arg, "set-as-default", value) || match(arg, "amd-set-as-default", value))
                return &o->set_default;
        if (match(arg, "unset-as-default", value) || match(arg, "unset-amd-as-default", value))
                return &o->unset_default;
        if (match(arg, "remove", value))
                return &o->remove;
        if (match(arg, "dry-run", value))
                return &o->dry_run;
        if (match(arg, "no-cdi", value))
                return &o->no_cdi;
        if (match(arg, "cdi", value))
                return &o->cdi;
        return NULL;
}

/* Returns 0, or the exit code of a usage error. */
static int parse_opts(int argc, char **argv, struct configure_opts *o)
{
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i], *v = NULL;
                const char **slot = NULL;
                bool *flag;
                if ((flag = bool_option(o, a, &v)) != NULL) {
                        if (bool_value(a, v, flag) < 0)
                                return 2;
                        continue;
                }
                if (match(a, "runtime", &v))
                        slot = &o->runtime;
                else if (match(a, "config-path", &v)) {
                        slot = &o->config_path;
                        o->config_path_given = true;
                } else if (match(a, "containerd-config", &v))
                        slot = &o->containerd_config;
                else if (match(a, "containerd-version", &v))
                        slot = &o->containerd_version_text;
                else if (match(a, "runtime-path", &v)) {
                        slot = &o->runtime_path;
                        o->runtime_path_given = true;
                } else if (!match(a, "runtime-arg", &v)) {
                        fprintf(stderr,
                                a[0] == '-' ? "amd-ctk: runtime configure: unknown option '%s'\n\n%s"
                                            : "amd-ctk: runtime configure: unexpected argument '%s'\n\n%s",
                                a, configure_usage);
                        return 2;
                }
                if (v == NULL) {
                        if (i + 1 >= argc) {
                                fprintf(stderr, "amd-ctk: runtime configure: option %s needs a value\n", a);
                                return 2;
                        }
                        v = argv[++i];
                }
                if (slot != NULL)
                        *slot = v;
                else if (ctk_strv_push(&o->args, v) < 0) {
                        fputs("amd-ctk: out of memory\n", stderr);
                        return 1;
                }
        }
        return 0;
}

/* The checks of the Go tool, same messages; then ours. */
static int check_opts(const struct configure_opts *o)
{
        const char *msg = NULL;
        bool docker = strcmp(o->runtime, "docker") == 0, containerd = strcmp(o->runtime, "containerd") == 0;
        if (!docker && !containerd && strcmp(o->runtime, "podman") != 0 && strcmp(o->runtime, "crio") != 0) {
                fprintf(stderr, "amd-ctk: unsupported runtime engine: %s (docker, containerd, podman or crio)\n",
                        o->runtime);
                return 1;
        }
        if (!docker && (o->args.n > 0 || o->cdi || o->no_cdi))
                msg =
                    "--runtime-arg, --cdi and --no-cdi apply to docker only (containerd's drop-in always enables CDI)";
        else if (!containerd && (o->containerd_config != NULL || o->containerd_version_text != NULL))
                msg = "--containerd-config and --containerd-version apply to containerd only";
        else if (o->containerd_version_text != NULL && strcmp(o->containerd_version_text, "2") != 0 &&
                 strcmp(o->containerd_version_text, "3") != 0)
                msg = "--containerd-version is 2 (containerd 1.x) or 3 (containerd 2.x)";
        else if (o->set_default && o->unset_default)
                msg = "both set and unset as default cannot be used at the same time";
        else if (o->remove && (o->set_default || o->unset_default))
                msg = "remove flag cannot be used along with set-as-default flag";
        else if ((o->remove || o->unset_default) && (o->runtime_path_given || o->args.n > 0))
                msg = "--runtime-path and --runtime-arg only apply when adding the runtime (not with --remove or "
                      "--unset-as-default)";
        else if (o->cdi && o->no_cdi)
                msg = "--cdi and --no-cdi cannot be used at the same time";
        else if ((o->cdi || o->no_cdi) && (o->remove || o->unset_default))
                msg = "--cdi and --no-cdi only apply when adding the runtime (not with --remove or --unset-as-default)";
        else if (o->config_path[0] == '\0')
                msg = "--config-path must not be empty";
        else if (o->runtime_path[0] == '\0')
                msg = "--runtime-path must not be empty";
        if (msg != NULL) {
                fprintf(stderr, "amd-ctk: %s\n", msg);
                return 1;
        }
        return 0;
}

/* The file to edit: a symbolic link is followed so that the link survives. */
static int resolve_target(const char *path, char **out, struct ctk_error **err)
{
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
                char *real = realpath(path, NULL);
                if (real == NULL)
                        return ctk_error_errno(err, errno, "cannot follow the symbolic link %s", path);
                *out = real;
                return 0;
        }
        *out = strdup(path);
        return *out != NULL ? 0 : ctk_error_set(err, ENOMEM, "out of memory");
}

/* Serialises edits of the same file: an exclusive lock on its directory. */
static int lock_dir(const char *path, struct ctk_error **err)
{
        _cleanup_free_ char *copy = strdup(path);
        if (copy == NULL)
                return ctk_error_set(err, ENOMEM, "out of memory");
        const char *dir = dirname(copy);
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return ctk_error_errno(err, errno, "cannot open directory %s", dir);
        if (flock(fd, LOCK_EX) < 0) {
                int e = errno;
                close(fd);
                return ctk_error_errno(err, e, "cannot lock directory %s", dir);
        }
        return fd; /* released when closed */
}

int ctk_runtime_config_load(const char *path, struct loaded *l, struct ctk_error **err)
{
        _cleanup_error_ struct ctk_error *rerr = NULL;
        if (ctk_file_read_all(path, &l->text, &l->len, &rerr) < 0) {
                if (rerr->code == ENOENT)
                        return 0;
                *err = ctk_steal(&rerr);
                return -1;
        }
        struct stat st;
        l->mode = stat(path, &st) == 0 ? (st.st_mode & 07777) : NEW_FILE_MODE;
        return 0;
}

static void report(const struct configure_opts *o, unsigned changes, const json_t *doc)
{
        if (changes & CTK_DOCKER_DEFAULT_UNSET)
                printf("Removed %s as the default runtime\n", RUNTIME_NAME);
        if (changes & CTK_DOCKER_RUNTIME_REMOVED)
                printf("Removed the %s runtime\n", RUNTIME_NAME);
        if (changes & CTK_DOCKER_CDI_DISABLED)
                puts("Set features.cdi to false");
        if (o->remove) {
                const json_t *f = json_object_get(doc, "features");
                if (json_is_true(json_object_get(f, "cdi")))
                        puts("Kept features.cdi (other CDI devices may need it)");
        }
}

int ctk_runtime_config_save(const char *path, const struct loaded *old, const char *text, struct ctk_error **err)
{
        if (old->text != NULL) {
                _cleanup_free_ char *bak = NULL;
                if (asprintf(&bak, "%s.bak", path) < 0)
                        return ctk_error_set(err, ENOMEM, "out of memory");
                if (ctk_file_write_atomic(bak, old->text, old->len, old->mode, err) < 0)
                        return ctk_error_prefix(err, "cannot keep the previous configuration");
        }
        if (ctk_file_write_atomic(path, text, strlen(text), old->text != NULL ? old->mode : NEW_FILE_MODE, err) < 0)
                return ctk_error_prefix(err, "failed to save the config");
        return 0;
}

static void report_unchanged(const struct configure_opts *o, enum ctk_docker_action action, const char *prev_default)
{
        if (action == CTK_DOCKER_ADD)
                printf("The config file is already up to date: %s\n", o->config_path);
        else if (action == CTK_DOCKER_REMOVE)
                printf("Nothing to remove: the %s runtime is not configured in %s\n", RUNTIME_NAME, o->config_path);
        else if (prev_default != NULL)
                printf("Nothing to change: %s is not the default runtime in %s (default-runtime is \"%s\")\n",
                       RUNTIME_NAME, o->config_path, prev_default);
        else
                printf("Nothing to change: %s is not the default runtime in %s\n", RUNTIME_NAME, o->config_path);
}

static int configure(const struct configure_opts *o)
{
        _cleanup_error_ struct ctk_error *err = NULL;
        _cleanup_free_ char *path = NULL;
        if (resolve_target(o->config_path, &path, &err) < 0)
                return ctk_cli_fail(err);

        /* Only adding creates missing directories; without them there is
         * nothing to remove or unset (and nothing to lock). */
        bool adding = !o->remove && !o->unset_default;
        _cleanup_close_ int lock = -1;
        if (!o->dry_run) {
                if (adding && ctk_mkdir_parent(path, 0755, &err) < 0)
                        return ctk_cli_fail(err);
                if ((lock = lock_dir(path, &err)) < 0) {
                        if (adding || err->code != ENOENT)
                                return ctk_cli_fail(err);
                        ctk_error_free(ctk_steal(&err));
                }
        }
        struct loaded old = {0};
        if (ctk_runtime_config_load(path, &old, &err) < 0)
                return ctk_cli_fail(err);
        _cleanup_free_ char *old_text = old.text;
        if (old_text != NULL && !o->dry_run)
                printf("Loading configuration from: %s\n", o->config_path);

        _cleanup_json_ json_t *doc = NULL;
        if (ctk_docker_config_parse(old_text != NULL ? old_text : "", old.len, o->config_path, &doc, &err) < 0)
                return ctk_cli_fail(err);
        struct ctk_docker_edit edit = {
            .action = adding      ? CTK_DOCKER_ADD
                      : o->remove ? CTK_DOCKER_REMOVE
                                  : CTK_DOCKER_UNSET_DEFAULT,
            .name = RUNTIME_NAME,
            .path = o->runtime_path,
            .args = o->args.v,
            .nargs = o->args.n,
            .set_as_default = o->set_default,
            .no_cdi = o->no_cdi,
        };
        const char *prev_default = ctk_docker_default_runtime(doc);
        _cleanup_free_ char *prev_default_copy = prev_default != NULL ? strdup(prev_default) : NULL;
        unsigned changes = 0;
        if (ctk_docker_config_apply(doc, &edit, &changes, &err) < 0)
                return ctk_cli_fail(err);
        _cleanup_free_ char *text =
            ctk_docker_config_dump(doc, old_text != NULL ? ctk_json_guess_indent(old_text, old.len) : 4);
        if (text == NULL) {
                ctk_error_set(&err, ENOMEM, "out of memory");
                return ctk_cli_fail(err);
        }
        if (o->dry_run) {
                fputs(text, stdout);
                return 0;
        }
        if (changes == 0) {
                report_unchanged(o, edit.action, prev_default_copy);
                return 0;
        }
        if (ctk_runtime_config_save(path, &old, text, &err) < 0)
                return ctk_cli_fail(err);
        report(o, changes, doc);
        printf("Updated the config file: %s\n", o->config_path);
        puts("Please restart docker daemon");
        return 0;
}

static int run_configure(int argc, char **argv)
{
        if (ctk_cli_wants_help(argc, argv)) {
                fputs(configure_usage, stdout);
                return 0;
        }
        /* Progress lines and an error line on stderr appear in order. */
        setvbuf(stdout, NULL, _IOLBF, 0);
        struct configure_opts o = {
            .runtime = "docker",
            .config_path = DEFAULT_DOCKER_CONFIG,
            .runtime_path = DEFAULT_RUNTIME_PATH,
        };
        int rc = parse_opts(argc, argv, &o);
        if (rc == 0)
                rc = check_opts(&o);
        if (rc == 0 && strcmp(o.runtime, "docker") != 0) {
                if (o.containerd_version_text != NULL)
                        o.containerd_version = o.containerd_version_text[0] - '0';
                if (o.containerd_config == NULL)
                        o.containerd_config = "/etc/containerd/config.toml";
                if (!o.config_path_given)
                        o.config_path = strcmp(o.runtime, "containerd") == 0 ? "/etc/containerd/conf.d/99-amd.toml"
                                        : strcmp(o.runtime, "podman") == 0
                                            ? "/etc/containers/containers.conf.d/99-amd.conf"
                                            : "/etc/crio/crio.conf.d/99-amd.conf";
                rc = ctk_runtime_configure_dropin(&o);
        } else if (rc == 0) {
                rc = configure(&o);
        }
        ctk_strv_clear(&o.args);
        return rc;
}

static int run_runtime(struct ctk_cli *cli, int argc, char **argv)
{
        (void)cli;
        if (argc >= 2 && strcmp(argv[1], "configure") == 0)
                return run_configure(argc - 1, argv + 1);
        if (ctk_cli_wants_help(argc, argv) || (argc >= 2 && strcmp(argv[1], "help") == 0)) {
                fputs(runtime_usage, stdout);
                return 0;
        }
        if (argc >= 2)
                fprintf(stderr, "amd-ctk: unknown runtime command '%s'\n\n", argv[1]);
        fputs(runtime_usage, stderr);
        return 2;
}

CTK_COMMAND(runtime_command, .name = "runtime", .summary = "runtime related commands for AMD Container Toolkit",
            .order = 10, .run = run_runtime)
