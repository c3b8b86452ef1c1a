#!/usr/bin/env escript
%% assoc: binary-string -> float map (Erlang's built-in map, #{}, immutable:
%% each update returns a new map, threaded through the loop, as Elixir's Map
%% is in assoc.exs). assoc_ets.erl, row erlang-ets, keeps them in an ETS table.
-mode(compile).

main(Args) ->
    N = case Args of
            [Arg | _] -> list_to_integer(Arg);
            [] -> 12000000
        end,
    {Map, D1, D2, D3} = fill(#{}, N, N, 0, 0, 0),
    io:format("~b ~b ~b~n", [D1, D2, D3]),
    {Total, Verify, Count} =
        maps:fold(fun(K, V, {T, Ve, C}) ->
                          {T + first_digit(V), Ve + byte_size(K), C + 1}
                  end, {0, 0, 0}, Map),
    io:format("~b ~b ~b~n", [Total, Verify, Count]).

fill(Map, _N, 0, D1, D2, D3) ->
    {Map, D1, D2, D3};
fill(Map0, N, Z, D1, D2, D3) ->
    V2 = N - Z,
    V3 = 2 * N - Z,
    {Map1, E1} = set_or_inc(Map0, integer_to_binary(Z), Z, V2),
    {Map2, E2} = set_or_inc(Map1, integer_to_binary(V2), V2, V3),
    {Map3, E3} = set_or_inc(Map2, rhex(V3), V3, Z),
    fill(Map3, N, Z - 1, D1 + E1, D2 + E2, D3 + E3).

%% store Set if K is new, else add Inc; the second element is 1 for a duplicate
set_or_inc(Map, K, Set, Inc) ->
    case Map of
        #{K := V} -> {Map#{K := V + Inc}, 1};
        _ -> {Map#{K => float(Set)}, 0}
    end.

%% base-16 digits of V, least significant digit first
rhex(V) -> rhex(V, <<>>).

rhex(0, Acc) -> Acc;
rhex(V, Acc) ->
    Digit = binary:at(<<"0123456789aBcDeF">>, V band 15),
    rhex(V bsr 4, <<Acc/binary, Digit>>).

first_digit(D) when D > 10 -> first_digit(D / 10);
first_digit(D) -> trunc(D).
