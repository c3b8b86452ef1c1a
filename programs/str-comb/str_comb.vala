// str-comb: comb sort of a string[], compared with Vala's string operators
// (strcmp: byte order). The swap moves the strings with (owned), Vala's
// ownership transfer, as C swaps pointers; a plain `t = a[i]` would copy them.
int main (string[] args) {
    int n = args.length > 1 ? int.parse (args[1]) : 10000000;
    string[] a = new string[n];
    for (int i = 0; i < n; i++) {
        a[i] = (n - i).to_string ();
    }

    int gap = n;
    bool swapped = false;
    do {
        gap = (int) (gap / 1.3);
        if (gap == 9 || gap == 10) {
            gap = 11;
        }
        if (gap < 1) {
            gap = 1;
        }
        swapped = false;
        for (int i = 0; i < n - gap; i++) {
            if (a[i] > a[i + gap]) {
                string t = (owned) a[i];
                a[i] = (owned) a[i + gap];
                a[i + gap] = (owned) t;
                swapped = true;
            }
        }
    } while (gap != 1 || swapped);

    int bad = 0;
    for (int i = 1; i < n; i++) {
        if (a[i] < a[i - 1]) {
            bad++;
        }
    }
    print ("%d %s %s\n", bad, a[0], a[n - 1]);
    return 0;
}
