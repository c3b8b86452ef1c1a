func main() {
    let args = CommandLine.arguments
    let n = args.count > 1 ? Int(args[1])! : 10_000_000
    var a = (0..<n).map { String(n - $0) }

    var gap = n
    while true {
        gap = Int(Double(gap) / 1.3)
        if gap == 9 || gap == 10 {
            gap = 11
        }
        if gap < 1 {
            gap = 1
        }
        var swapped = false
        var i = 0
        while i + gap < n {
            if a[i] > a[i + gap] {
                a.swapAt(i, i + gap)
                swapped = true
            }
            i += 1
        }
        if gap == 1 && !swapped {
            break
        }
    }

    var bad = 0
    for i in 1..<n where a[i] < a[i - 1] {
        bad += 1
    }
    print("\(bad) \(a[0]) \(a[n - 1])")
}

main()
