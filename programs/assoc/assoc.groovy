import groovy.transform.Field

@Field final String HEX_DIGITS = '0123456789aBcDeF'

// Base-16 digits of v, least significant digit first.
String rhex(int value) {
    def sb = new StringBuilder()
    int v = value
    while (v > 0) {
        sb.append(HEX_DIGITS[v % 16])
        v = v.intdiv(16)
    }
    sb.toString()
}

int firstDigit(double d) {
    while (d > 10) {
        d /= 10
    }
    (int) d
}

// Stores set if key is new, else adds inc; returns true when the key was already there.
boolean setOrInc(Map<String, Double> map, String key, int set, int inc) {
    Double old = map[key]
    if (old == null) {
        map[key] = (double) set
        return false
    }
    map[key] = old + inc
    true
}

int n = args ? args[0].toInteger() : 12000000

Map<String, Double> map = [:]
long dup1 = 0, dup2 = 0, dup3 = 0
for (z in n..1) {
    int v2 = n - z
    int v3 = 2 * n - z
    if (setOrInc(map, z.toString(), z, v2)) dup1++
    if (setOrInc(map, v2.toString(), v2, v3)) dup2++
    if (setOrInc(map, rhex(v3), v3, z)) dup3++
}
println "$dup1 $dup2 $dup3"

long total = 0, verify = 0, count = 0
map.each { key, value ->
    total += firstDigit(value)
    verify += key.length()
    count++
}
println "$total $verify $count"
