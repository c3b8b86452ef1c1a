object Main {
  def main(args: Array[String]): Unit = {
    val n = if (args.nonEmpty) args(0).toInt else 10000000

    val a = Array.tabulate[Double](n)(i => (n - i).toDouble)

    var gap = n
    var done = false
    while (!done) {
      gap = (gap / 1.3).toInt
      if (gap == 9 || gap == 10) gap = 11
      if (gap < 1) gap = 1
      var swapped = false
      for (i <- 0 until n - gap) {
        if (a(i) > a(i + gap)) {
          val t = a(i)
          a(i) = a(i + gap)
          a(i + gap) = t
          swapped = true
        }
      }
      done = gap == 1 && !swapped
    }

    val bad = (1 until n).count(i => a(i) < a(i - 1))
    println(s"$bad ${a(0).toLong} ${a(n - 1).toLong}")
  }
}
