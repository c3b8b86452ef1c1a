fun main(args: Array<String>) {
    val n = if (args.isNotEmpty()) args[0].toInt() else 10_000_000

    val a = DoubleArray(n) { i -> (n - i).toDouble() }

    var gap = n
    while (true) {
        gap = (gap / 1.3).toInt()
        if (gap == 9 || gap == 10) gap = 11
        if (gap < 1) gap = 1
        var swapped = false
        for (i in 0 until n - gap) {
            if (a[i] > a[i + gap]) {
                val t = a[i]
                a[i] = a[i + gap]
                a[i + gap] = t
                swapped = true
            }
        }
        if (gap == 1 && !swapped) break
    }

    var bad = 0
    for (i in 1 until n) {
        if (a[i] < a[i - 1]) bad++
    }
    println("$bad ${a[0].toLong()} ${a[n - 1].toLong()}")
}
