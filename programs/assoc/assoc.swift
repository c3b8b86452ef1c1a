let hexDigits = Array("0123456789aBcDeF")

/// The base-16 digits of v, least significant digit first.
func rhex(_ v: Int) -> String {
    var v = v
    var s = ""
    while v > 0 {
        s.append(hexDigits[v % 16])
        v /= 16
    }
    return s
}

func firstDigit(_ d: Double) -> Int {
    var d = d
    while d > 10 {
        d /= 10
    }
    return Int(d)
}

func setOrInc(_ m: inout [String: Double], _ key: String, _ set: Int, _ inc: Int, _ counter: inout Int) {
    if let value = m[key] {
        m[key] = value + Double(inc)
        counter += 1
    } else {
        m[key] = Double(set)
    }
}

func main() {
    let args = CommandLine.arguments
    let n = args.count > 1 ? Int(args[1])! : 12_000_000
    var m = [String: Double]()
    var dup1 = 0, dup2 = 0, dup3 = 0
    for z in stride(from: n, to: 0, by: -1) {
        let v2 = n - z
        let v3 = 2 * n - z
        setOrInc(&m, String(z), z, v2, &dup1)
        setOrInc(&m, String(v2), v2, v3, &dup2)
        setOrInc(&m, rhex(v3), v3, z, &dup3)
    }
    print("\(dup1) \(dup2) \(dup3)")

    var total = 0, verify = 0, count = 0
    for (key, value) in m {
        total += firstDigit(value)
        verify += key.utf8.count
        count += 1
    }
    print("\(total) \(verify) \(count)")
}

main()
