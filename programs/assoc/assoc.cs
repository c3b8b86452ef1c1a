using System;
using System.Collections.Generic;
using System.Text;

class Assoc
{
    const string HexDigits = "0123456789aBcDeF";

    // Base-16 digits of v, least significant digit first.
    static string Rhex(int v)
    {
        var sb = new StringBuilder();
        while (v > 0)
        {
            sb.Append(HexDigits[v % 16]);
            v /= 16;
        }
        return sb.ToString();
    }

    static int FirstDigit(double d)
    {
        while (d > 10)
        {
            d /= 10;
        }
        return (int)d;
    }

    // Stores set if key is new, else adds inc; returns true when the key was already there.
    static bool SetOrInc(Dictionary<string, double> map, string key, int set, int inc)
    {
        if (map.TryGetValue(key, out double old))
        {
            map[key] = old + inc;
            return true;
        }
        map[key] = set;
        return false;
    }

    static void Main(string[] args)
    {
        int n = args.Length > 0 ? int.Parse(args[0]) : 12000000;

        var map = new Dictionary<string, double>();
        long dup1 = 0, dup2 = 0, dup3 = 0;
        for (int z = n; z > 0; z--)
        {
            int v2 = n - z;
            int v3 = 2 * n - z;
            if (SetOrInc(map, z.ToString(), z, v2)) dup1++;
            if (SetOrInc(map, v2.ToString(), v2, v3)) dup2++;
            if (SetOrInc(map, Rhex(v3), v3, z)) dup3++;
        }
        Console.WriteLine($"{dup1} {dup2} {dup3}");

        long total = 0, verify = 0, count = 0;
        foreach (var kv in map)
        {
            total += FirstDigit(kv.Value);
            verify += kv.Key.Length;
            count++;
        }
        Console.WriteLine($"{total} {verify} {count}");
    }
}
