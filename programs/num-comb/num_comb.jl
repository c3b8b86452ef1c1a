function main()
    n = isempty(ARGS) ? 10_000_000 : parse(Int, ARGS[1])
    a = Float64[n - i for i in 0:n-1]

    gap = n
    while true
        gap = floor(Int, gap / 1.3)
        if gap == 9 || gap == 10
            gap = 11
        end
        if gap < 1
            gap = 1
        end
        swapped = false
        for i in 1:n-gap
            if a[i] > a[i+gap]
                a[i], a[i+gap] = a[i+gap], a[i]
                swapped = true
            end
        end
        if gap == 1 && !swapped
            break
        end
    end

    bad = 0
    for i in 2:n
        if a[i] < a[i-1]
            bad += 1
        end
    end
    println("$bad $(Int(a[1])) $(Int(a[n]))")
end

main()
