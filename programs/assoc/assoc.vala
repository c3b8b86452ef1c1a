// assoc: GLib.HashTable (string -> double?), the hash map Vala binds from
// GLib by default (libgee's Gee.HashMap is a third-party library).
const string HEX = "0123456789aBcDeF";

// base-16 digits of v, least significant digit first
string rhex (int v) {
    var sb = new StringBuilder ();
    while (v > 0) {
        sb.append_c (HEX[v % 16]);
        v /= 16;
    }
    return sb.str;
}

long first_digit (double d) {
    while (d > 10) {
        d /= 10;
    }
    return (long) d;
}

// GLib's hash table has no get-or-insert that reports presence: look up, then store.
void set_or_inc (HashTable<string, double?> m, string key, int set, int inc, ref long counter) {
    unowned double? old = m.lookup (key);
    if (old != null) {
        m.insert (key, old + inc);
        counter++;
    } else {
        m.insert (key, set);
    }
}

int main (string[] args) {
    int n = args.length > 1 ? int.parse (args[1]) : 12000000;
    var m = new HashTable<string, double?> (str_hash, str_equal);
    long dup1 = 0, dup2 = 0, dup3 = 0;
    for (int z = n; z > 0; z--) {
        int v2 = n - z;
        int v3 = 2 * n - z;
        set_or_inc (m, z.to_string (), z, v2, ref dup1);
        set_or_inc (m, v2.to_string (), v2, v3, ref dup2);
        set_or_inc (m, rhex (v3), v3, z, ref dup3);
    }
    print ("%ld %ld %ld\n", dup1, dup2, dup3);

    long total = 0, verify = 0, count = 0;
    var it = HashTableIter<string, double?> (m);
    unowned string key;
    unowned double? value;
    while (it.next (out key, out value)) {
        total += first_digit (value);
        verify += key.length;
        count++;
    }
    print ("%ld %ld %ld\n", total, verify, count);
    return 0;
}
