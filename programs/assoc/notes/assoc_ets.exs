# assoc with an ETS table from Elixir (:ets, the same BIFs as assoc_ets.erl):
# not a row, the measurement behind programs/FAIRNESS.md's "Erlang and Elixir
# assoc" decision. assoc.exs (row elixir) is the program measured.

defmodule AssocEts do
  import Bitwise

  @alphabet "0123456789aBcDeF"

  # base-16 digits of v, least significant digit first
  def rhex(v), do: rhex(v, "")
  defp rhex(0, acc), do: acc
  defp rhex(v, acc), do: rhex(v >>> 4, acc <> binary_part(@alphabet, v &&& 15, 1))

  def first_digit(d) when d > 10, do: first_digit(d / 10)
  def first_digit(d), do: trunc(d)

  # store set if key is new, else add inc; 1 for a duplicate
  def set_or_inc(table, key, set, inc) do
    case :ets.lookup(table, key) do
      [{_, value}] -> :ets.insert(table, {key, value + inc}); 1
      [] -> :ets.insert(table, {key, set * 1.0}); 0
    end
  end

  def run(n) do
    table = :ets.new(:assoc, [:set])

    {dup1, dup2, dup3} =
      Enum.reduce(n..1//-1, {0, 0, 0}, fn z, {dup1, dup2, dup3} ->
        v2 = n - z
        v3 = 2 * n - z
        d1 = set_or_inc(table, Integer.to_string(z), z, v2)
        d2 = set_or_inc(table, Integer.to_string(v2), v2, v3)
        d3 = set_or_inc(table, rhex(v3), v3, z)
        {dup1 + d1, dup2 + d2, dup3 + d3}
      end)

    IO.puts("#{dup1} #{dup2} #{dup3}")

    {total, verify, count} =
      :ets.foldl(fn {key, value}, {total, verify, count} ->
        {total + first_digit(value), verify + byte_size(key), count + 1}
      end, {0, 0, 0}, table)

    IO.puts("#{total} #{verify} #{count}")
  end
end

n =
  case System.argv() do
    [arg | _] -> String.to_integer(arg)
    [] -> 12_000_000
  end

AssocEts.run(n)
