#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 10000000;
    std::vector<std::string> a(n);
    for (long i = 0; i < n; ++i)
        a[i] = std::to_string(n - i);

    long gap = n;
    bool swapped;
    do {
        gap = static_cast<long>(gap / 1.3);
        if (gap == 9 || gap == 10)
            gap = 11;
        if (gap < 1)
            gap = 1;
        swapped = false;
        for (long i = 0; i < n - gap; ++i) {
            if (a[i] > a[i + gap]) {
                std::swap(a[i], a[i + gap]);
                swapped = true;
            }
        }
    } while (gap != 1 || swapped);

    long bad = 0;
    for (long i = 1; i < n; ++i)
        if (a[i] < a[i - 1])
            ++bad;
    std::cout << bad << ' ' << a[0] << ' ' << a[n - 1] << '\n';
    return 0;
}
