#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

typedef struct {
    char key[24];
    double value;
    UT_hash_handle hh;
} entry;

static entry *map = NULL;

static void set_or_inc(const char *key, long set, long inc, long *counter)
{
    entry *e;
    HASH_FIND_STR(map, key, e);
    if (e == NULL) {
        e = malloc(sizeof *e);
        strcpy(e->key, key);
        e->value = (double)set;
        HASH_ADD_STR(map, key, e);
    } else {
        e->value += (double)inc;
        ++*counter;
    }
}

/* base-16 digits of v, least significant digit first */
static void rhex(long v, char *buf)
{
    static const char digits[] = "0123456789aBcDeF";
    int i = 0;
    while (v > 0) {
        buf[i++] = digits[v % 16];
        v /= 16;
    }
    buf[i] = '\0';
}

static long first_digit(double d)
{
    while (d > 10)
        d /= 10;
    return (long)d;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 12000000;
    long dup1 = 0, dup2 = 0, dup3 = 0;
    char buf[24];

    for (long z = n; z > 0; z--) {
        long v2 = n - z;
        long v3 = 2 * n - z;
        snprintf(buf, sizeof buf, "%ld", z);
        set_or_inc(buf, z, v2, &dup1);
        snprintf(buf, sizeof buf, "%ld", v2);
        set_or_inc(buf, v2, v3, &dup2);
        rhex(v3, buf);
        set_or_inc(buf, v3, z, &dup3);
    }
    printf("%ld %ld %ld\n", dup1, dup2, dup3);

    long total = 0, verify = 0, count = 0;
    entry *e, *tmp;
    HASH_ITER(hh, map, e, tmp) {
        total += first_digit(e->value);
        verify += (long)strlen(e->key);
        count++;
    }
    printf("%ld %ld %ld\n", total, verify, count);
    return 0;
}
