/*
** regression_driver.c: replays fuzz inputs without libFuzzer (zstd's
** regression driver): each argument is a file or a directory of files, each
** fed once to LLVMFuzzerTestOneInput, so fixed crashes stay fixed under ctest.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fuzzers cap inputs at 1 MiB; replay the same prefix of bigger seeds. */
#define REPLAY_MAX (1u << 20)

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    uint8_t *buf = malloc(REPLAY_MAX);
    if (!buf) {
        fclose(f);
        return 1;
    }
    size_t n = fread(buf, 1, REPLAY_MAX, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int replay(const char *path, int *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        return replay_file(path);
    }
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        return 1;
    }
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        size_t n = strlen(path) + strlen(de->d_name) + 2;
        char *child = malloc(n);
        if (!child) break;
        snprintf(child, n, "%s/%s", path, de->d_name);
        rc |= replay(child, count);
        free(child);
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0, count = 0;
    for (int i = 1; i < argc; i++) rc |= replay(argv[i], &count);
    printf("replayed %d inputs\n", count);
    return rc || count == 0;
}
