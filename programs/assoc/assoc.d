import std.conv : to;
import std.stdio : writeln;

string rhex(long v)
{
    enum digits = "0123456789aBcDeF";
    char[] s;
    while (v > 0)
    {
        s ~= digits[v % 16];
        v /= 16;
    }
    return s.idup;
}

long firstDigit(double d)
{
    while (d > 10)
        d /= 10;
    return cast(long) d;
}

void setOrInc(ref double[string] m, string key, long set, long inc, ref long counter)
{
    if (auto p = key in m)
    {
        *p += inc;
        ++counter;
    }
    else
        m[key] = set;
}

void main(string[] args)
{
    long n = args.length > 1 ? args[1].to!long : 12_000_000;
    double[string] m;
    long dup1, dup2, dup3;

    foreach_reverse (z; 1 .. n + 1)
    {
        long v2 = n - z;
        long v3 = 2 * n - z;
        setOrInc(m, z.to!string, z, v2, dup1);
        setOrInc(m, v2.to!string, v2, v3, dup2);
        setOrInc(m, rhex(v3), v3, z, dup3);
    }
    writeln(dup1, " ", dup2, " ", dup3);

    long total, verify, count;
    foreach (key, value; m)
    {
        total += firstDigit(value);
        verify += key.length;
        ++count;
    }
    writeln(total, " ", verify, " ", count);
}
