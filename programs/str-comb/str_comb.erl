#!/usr/bin/env escript
%% str-comb: comb sort of binaries (compared byte by byte) in the array module
-mode(compile).

main(Args) ->
    N = case Args of
            [Arg | _] -> list_to_integer(Arg);
            [] -> 10000000
        end,
    A0 = array:from_list([integer_to_binary(N - I) || I <- lists:seq(0, N - 1)]),
    A = comb(A0, N, N),
    Bad = length([I || I <- lists:seq(1, N - 1),
                       array:get(I, A) < array:get(I - 1, A)]),
    io:format("~b ~s ~s~n", [Bad, array:get(0, A), array:get(N - 1, A)]).

comb(A0, N, Gap0) ->
    Gap1 = floor(Gap0 / 1.3),
    Gap2 = if Gap1 =:= 9; Gap1 =:= 10 -> 11; true -> Gap1 end,
    Gap = max(Gap2, 1),
    {A, Swapped} = pass(A0, 0, N - Gap, Gap, false),
    case Gap =:= 1 andalso not Swapped of
        true -> A;
        false -> comb(A, N, Gap)
    end.

pass(A, I, Limit, _Gap, Swapped) when I >= Limit ->
    {A, Swapped};
pass(A, I, Limit, Gap, Swapped) ->
    X = array:get(I, A),
    Y = array:get(I + Gap, A),
    if
        X > Y -> pass(array:set(I + Gap, X, array:set(I, Y, A)), I + 1, Limit, Gap, true);
        true -> pass(A, I + 1, Limit, Gap, Swapped)
    end.
