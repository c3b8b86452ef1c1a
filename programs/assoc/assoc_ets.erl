#!/usr/bin/env escript
%% assoc: binary-string -> float table in ETS (Erlang's built-in mutable hash table,
%% a `set` table owned by this process): row erlang-ets. assoc.erl, the erlang
%% row, uses Erlang's everyday map (#{}), as Elixir's row uses its Map.
-mode(compile).

main(Args) ->
    N = case Args of
            [Arg | _] -> list_to_integer(Arg);
            [] -> 12000000
        end,
    Table = ets:new(assoc, [set]),
    {D1, D2, D3} = fill(Table, N, N, 0, 0, 0),
    io:format("~b ~b ~b~n", [D1, D2, D3]),
    {Total, Verify, Count} =
        ets:foldl(fun({K, V}, {T, Ve, C}) ->
                          {T + first_digit(V), Ve + byte_size(K), C + 1}
                  end, {0, 0, 0}, Table),
    io:format("~b ~b ~b~n", [Total, Verify, Count]).

fill(_Table, _N, 0, D1, D2, D3) ->
    {D1, D2, D3};
fill(Table, N, Z, D1, D2, D3) ->
    V2 = N - Z,
    V3 = 2 * N - Z,
    E1 = set_or_inc(Table, integer_to_binary(Z), Z, V2),
    E2 = set_or_inc(Table, integer_to_binary(V2), V2, V3),
    E3 = set_or_inc(Table, rhex(V3), V3, Z),
    fill(Table, N, Z - 1, D1 + E1, D2 + E2, D3 + E3).

%% store Set if K is new, else add Inc; returns 1 for a duplicate, else 0
set_or_inc(Table, K, Set, Inc) ->
    case ets:lookup(Table, K) of
        [{_, V}] -> ets:insert(Table, {K, V + Inc}), 1;
        [] -> ets:insert(Table, {K, float(Set)}), 0
    end.

%% base-16 digits of V, least significant digit first
rhex(V) -> rhex(V, <<>>).

rhex(0, Acc) -> Acc;
rhex(V, Acc) ->
    Digit = binary:at(<<"0123456789aBcDeF">>, V band 15),
    rhex(V bsr 4, <<Acc/binary, Digit>>).

first_digit(D) when D > 10 -> first_digit(D / 10);
first_digit(D) -> trunc(D).
