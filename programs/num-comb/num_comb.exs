# num-comb: comb sort of floats in Erlang's :array (functional array; every set returns a new one)

defmodule NumComb do
  def run(n) do
    a = :array.from_list(Enum.map(0..(n - 1), fn i -> (n - i) * 1.0 end))
    a = comb(a, n, n)

    bad = Enum.count(1..(n - 1)//1, fn i -> :array.get(i, a) < :array.get(i - 1, a) end)
    IO.puts("#{bad} #{trunc(:array.get(0, a))} #{trunc(:array.get(n - 1, a))}")
  end

  defp comb(a, n, gap) do
    gap =
      case floor(gap / 1.3) do
        g when g in [9, 10] -> 11
        g when g < 1 -> 1
        g -> g
      end

    {a, swapped} = pass(a, 0, n - gap, gap, false)

    if gap == 1 and not swapped, do: a, else: comb(a, n, gap)
  end

  defp pass(a, i, limit, _gap, swapped) when i >= limit, do: {a, swapped}

  defp pass(a, i, limit, gap, swapped) do
    x = :array.get(i, a)
    y = :array.get(i + gap, a)

    if x > y do
      a = :array.set(i, y, a)
      a = :array.set(i + gap, x, a)
      pass(a, i + 1, limit, gap, true)
    else
      pass(a, i + 1, limit, gap, swapped)
    end
  end
end

n =
  case System.argv() do
    [arg | _] -> String.to_integer(arg)
    [] -> 10_000_000
  end

NumComb.run(n)
