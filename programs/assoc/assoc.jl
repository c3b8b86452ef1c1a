const HEX = "0123456789aBcDeF"

function rhex(v::Int)
    io = IOBuffer()
    while v > 0
        write(io, HEX[v % 16 + 1])
        v ÷= 16
    end
    return String(take!(io))
end

function first_digit(d::Float64)
    while d > 10
        d /= 10
    end
    return trunc(Int, d)
end

function main()
    n = isempty(ARGS) ? 12_000_000 : parse(Int, ARGS[1])
    m = Dict{String,Float64}()
    dup1 = dup2 = dup3 = 0
    for z in n:-1:1
        v2 = n - z
        v3 = 2n - z

        key = string(z)
        if haskey(m, key)
            m[key] += v2
            dup1 += 1
        else
            m[key] = z
        end

        key = string(v2)
        if haskey(m, key)
            m[key] += v3
            dup2 += 1
        else
            m[key] = v2
        end

        key = rhex(v3)
        if haskey(m, key)
            m[key] += z
            dup3 += 1
        else
            m[key] = v3
        end
    end
    println("$dup1 $dup2 $dup3")

    total = verify = count = 0
    for (key, value) in m
        total += first_digit(value)
        verify += sizeof(key)
        count += 1
    end
    println("$total $verify $count")
end

main()
