/* Shared by the host references: arguments are NAME=FILE, as warp-sim's --in. */
#ifndef REF_COMMON_H
#define REF_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads n numbers of host array `name` from the NAME=FILE argument; exits 1 on error. */
static inline void ref_read(int argc, char **argv, const char *name, double *v, int n)
{
    size_t len = strlen(name);
    for (int a = 1; a < argc; a++) {
        if (strncmp(argv[a], name, len) != 0 || argv[a][len] != '=') continue;
        FILE *f = fopen(argv[a] + len + 1, "r");
        int i = 0;
        while (f && i < n && fscanf(f, "%lf", &v[i]) == 1) i++;
        if (f) fclose(f);
        if (i == n) return;
        break;
    }
    fprintf(stderr, "reference: cannot read %d numbers for '%s'\n", n, name);
    exit(1);
}

#endif
