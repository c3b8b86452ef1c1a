# assoc: String -> float Map (Elixir's built-in immutable Map, threaded through a reduce)

defmodule Assoc do
  import Bitwise

  @alphabet "0123456789aBcDeF"

  # base-16 digits of v, least significant digit first
  def rhex(v), do: rhex(v, "")
  defp rhex(0, acc), do: acc
  defp rhex(v, acc), do: rhex(v >>> 4, acc <> binary_part(@alphabet, v &&& 15, 1))

  def first_digit(d) when d > 10, do: first_digit(d / 10)
  def first_digit(d), do: trunc(d)

  # store set if key is new, else add inc; the second element is 1 for a duplicate
  def set_or_inc(map, key, set, inc) do
    case map do
      %{^key => value} -> {%{map | key => value + inc}, 1}
      _ -> {Map.put(map, key, set * 1.0), 0}
    end
  end

  def run(n) do
    {map, dup1, dup2, dup3} =
      Enum.reduce(n..1//-1, {%{}, 0, 0, 0}, fn z, {map, dup1, dup2, dup3} ->
        v2 = n - z
        v3 = 2 * n - z
        {map, d1} = set_or_inc(map, Integer.to_string(z), z, v2)
        {map, d2} = set_or_inc(map, Integer.to_string(v2), v2, v3)
        {map, d3} = set_or_inc(map, rhex(v3), v3, z)
        {map, dup1 + d1, dup2 + d2, dup3 + d3}
      end)

    IO.puts("#{dup1} #{dup2} #{dup3}")

    {total, verify, count} =
      Enum.reduce(map, {0, 0, 0}, fn {key, value}, {total, verify, count} ->
        {total + first_digit(value), verify + byte_size(key), count + 1}
      end)

    IO.puts("#{total} #{verify} #{count}")
  end
end

n =
  case System.argv() do
    [arg | _] -> String.to_integer(arg)
    [] -> 12_000_000
  end

Assoc.run(n)
