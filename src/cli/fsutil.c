/*
 * fsutil.c - the few file-system chores of commands that stage files in a
 * private temporary folder (`compare`, `replay`).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_mkdirs(const char *path)
{
    char tmp[4096];
    size_t i;

    snprintf(tmp, sizeof(tmp), "%s", path);
    for (i = 1; tmp[i]; i++) {
        if (tmp[i] == '/') {
            tmp[i] = '\0';
            if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
                return -1;
            tmp[i] = '/';
        }
    }
    return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

static void remove_at(const char *path, int depth)
{
    DIR *d = depth < 64 ? opendir(path) : NULL;
    struct dirent *e;

    while (d && (e = readdir(d)) != NULL) {
        char p[4096];
        struct stat sb;

        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            remove_at(p, depth + 1);
        else
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(path);
}

void cli_remove_tree(const char *path)
{
    remove_at(path, 0);
}
