import java.util.HashMap;
import java.util.Map;

public class Assoc {
    private static final String HEX_DIGITS = "0123456789aBcDeF";

    /** Base-16 digits of v, least significant digit first. */
    static String rhex(int v) {
        StringBuilder sb = new StringBuilder();
        while (v > 0) {
            sb.append(HEX_DIGITS.charAt(v % 16));
            v /= 16;
        }
        return sb.toString();
    }

    static int firstDigit(double d) {
        while (d > 10) {
            d /= 10;
        }
        return (int) d;
    }

    /** Stores set if key is new, else adds inc; returns true when the key was already there. */
    static boolean setOrInc(Map<String, Double> map, String key, int set, int inc) {
        Double old = map.get(key);
        if (old == null) {
            map.put(key, (double) set);
            return false;
        }
        map.put(key, old + inc);
        return true;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 12000000;

        Map<String, Double> map = new HashMap<>();
        long dup1 = 0, dup2 = 0, dup3 = 0;
        for (int z = n; z > 0; z--) {
            int v2 = n - z;
            int v3 = 2 * n - z;
            if (setOrInc(map, Integer.toString(z), z, v2)) dup1++;
            if (setOrInc(map, Integer.toString(v2), v2, v3)) dup2++;
            if (setOrInc(map, rhex(v3), v3, z)) dup3++;
        }
        System.out.println(dup1 + " " + dup2 + " " + dup3);

        long total = 0, verify = 0, count = 0;
        for (Map.Entry<String, Double> e : map.entrySet()) {
            total += firstDigit(e.getValue());
            verify += e.getKey().length();
            count++;
        }
        System.out.println(total + " " + verify + " " + count);
    }
}
