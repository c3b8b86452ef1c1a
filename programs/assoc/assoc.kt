const val HEX_DIGITS = "0123456789aBcDeF"

/** Base-16 digits of v, least significant digit first. */
fun rhex(value: Int): String {
    val sb = StringBuilder()
    var v = value
    while (v > 0) {
        sb.append(HEX_DIGITS[v % 16])
        v /= 16
    }
    return sb.toString()
}

fun firstDigit(value: Double): Int {
    var d = value
    while (d > 10) d /= 10
    return d.toInt()
}

/** Stores set if key is new, else adds inc; returns true when the key was already there. */
fun setOrInc(map: HashMap<String, Double>, key: String, set: Int, inc: Int): Boolean {
    val old = map[key]
    return if (old == null) {
        map[key] = set.toDouble()
        false
    } else {
        map[key] = old + inc
        true
    }
}

fun main(args: Array<String>) {
    val n = if (args.isNotEmpty()) args[0].toInt() else 12_000_000

    val map = HashMap<String, Double>()
    var dup1 = 0L
    var dup2 = 0L
    var dup3 = 0L
    for (z in n downTo 1) {
        val v2 = n - z
        val v3 = 2 * n - z
        if (setOrInc(map, z.toString(), z, v2)) dup1++
        if (setOrInc(map, v2.toString(), v2, v3)) dup2++
        if (setOrInc(map, rhex(v3), v3, z)) dup3++
    }
    println("$dup1 $dup2 $dup3")

    var total = 0L
    var verify = 0L
    var count = 0L
    for ((key, value) in map) {
        total += firstDigit(value)
        verify += key.length
        count++
    }
    println("$total $verify $count")
}
