#include <cstdlib>
#include <iostream>
#include <string>
#include <unordered_map>

static std::string rhex(long v)
{
    static const char digits[] = "0123456789aBcDeF";
    std::string s;
    while (v > 0) {
        s += digits[v % 16];
        v /= 16;
    }
    return s;
}

static long first_digit(double d)
{
    while (d > 10)
        d /= 10;
    return static_cast<long>(d);
}

static void set_or_inc(std::unordered_map<std::string, double> &m, std::string key,
                       long set, long inc, long &counter)
{
    auto [it, inserted] = m.try_emplace(std::move(key), static_cast<double>(set));
    if (!inserted) {
        it->second += inc;
        ++counter;
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 12000000;
    std::unordered_map<std::string, double> m;
    long dup1 = 0, dup2 = 0, dup3 = 0;

    for (long z = n; z > 0; --z) {
        long v2 = n - z;
        long v3 = 2 * n - z;
        set_or_inc(m, std::to_string(z), z, v2, dup1);
        set_or_inc(m, std::to_string(v2), v2, v3, dup2);
        set_or_inc(m, rhex(v3), v3, z, dup3);
    }
    std::cout << dup1 << ' ' << dup2 << ' ' << dup3 << '\n';

    long total = 0, verify = 0, count = 0;
    for (const auto &[key, value] : m) {
        total += first_digit(value);
        verify += static_cast<long>(key.size());
        ++count;
    }
    std::cout << total << ' ' << verify << ' ' << count << '\n';
    return 0;
}
