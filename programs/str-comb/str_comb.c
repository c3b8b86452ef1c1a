#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    char **a = malloc(n * sizeof *a);
    char buf[24];
    if (a == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "%ld", n - i);
        a[i] = strdup(buf);
    }

    long gap = n;
    int swapped;
    do {
        gap = (long)(gap / 1.3);
        if (gap == 9 || gap == 10)
            gap = 11;
        if (gap < 1)
            gap = 1;
        swapped = 0;
        for (long i = 0; i < n - gap; i++) {
            if (strcmp(a[i], a[i + gap]) > 0) {
                char *t = a[i];
                a[i] = a[i + gap];
                a[i + gap] = t;
                swapped = 1;
            }
        }
    } while (gap != 1 || swapped);

    long bad = 0;
    for (long i = 1; i < n; i++)
        if (strcmp(a[i], a[i - 1]) < 0)
            bad++;
    printf("%ld %s %s\n", bad, a[0], a[n - 1]);
    return 0;
}
