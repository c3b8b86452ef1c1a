import scala.collection.mutable

object Main {
  val HexDigits = "0123456789aBcDeF"

  /** Base-16 digits of v, least significant digit first. */
  def rhex(value: Int): String = {
    val sb = new StringBuilder
    var v = value
    while (v > 0) {
      sb.append(HexDigits(v % 16))
      v /= 16
    }
    sb.toString
  }

  def firstDigit(value: Double): Int = {
    var d = value
    while (d > 10) d /= 10
    d.toInt
  }

  /** Stores set if key is new, else adds inc; returns true when the key was already there. */
  def setOrInc(map: mutable.HashMap[String, Double], key: String, set: Int, inc: Int): Boolean =
    map.get(key) match {
      case Some(old) =>
        map(key) = old + inc
        true
      case None =>
        map(key) = set.toDouble
        false
    }

  def main(args: Array[String]): Unit = {
    val n = if (args.nonEmpty) args(0).toInt else 12000000

    val map = mutable.HashMap.empty[String, Double]
    var dup1, dup2, dup3 = 0L
    for (z <- n to 1 by -1) {
      val v2 = n - z
      val v3 = 2 * n - z
      if (setOrInc(map, z.toString, z, v2)) dup1 += 1
      if (setOrInc(map, v2.toString, v2, v3)) dup2 += 1
      if (setOrInc(map, rhex(v3), v3, z)) dup3 += 1
    }
    println(s"$dup1 $dup2 $dup3")

    var total, verify, count = 0L
    for ((key, value) <- map) {
      total += firstDigit(value)
      verify += key.length
      count += 1
    }
    println(s"$total $verify $count")
  }
}
