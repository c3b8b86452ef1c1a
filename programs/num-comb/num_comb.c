#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    double *a = malloc(n * sizeof *a);
    if (a == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        a[i] = (double)(n - i);

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
            if (a[i] > a[i + gap]) {
                double t = a[i];
                a[i] = a[i + gap];
                a[i + gap] = t;
                swapped = 1;
            }
        }
    } while (gap != 1 || swapped);

    long bad = 0;
    for (long i = 1; i < n; i++)
        if (a[i] < a[i - 1])
            bad++;
    printf("%ld %ld %ld\n", bad, (long)a[0], (long)a[n - 1]);
    free(a);
    return 0;
}
