--  num-comb: comb sort of an array of N Long_Float (64-bit), on the heap.
with Ada.Command_Line;
with Ada.Strings.Fixed;
with Ada.Text_IO;

procedure Num_Comb is
   type Float_Array is array (Positive range <>) of Long_Float;
   type Float_Array_Access is access Float_Array;

   function Decimal (V : Long_Long_Integer) return String is
     (Ada.Strings.Fixed.Trim (Long_Long_Integer'Image (V), Ada.Strings.Left));

   N       : Natural := 10_000_000;
   A       : Float_Array_Access;
   Gap     : Natural;
   Swapped : Boolean;
   T       : Long_Float;
   Bad     : Natural := 0;
begin
   if Ada.Command_Line.Argument_Count > 0 then
      N := Natural'Value (Ada.Command_Line.Argument (1));
   end if;

   --  A (I) = N - (I - 1): the spec's a[i] = N - i with a 1-based index
   A := new Float_Array (1 .. N);
   for I in A'Range loop
      A (I) := Long_Float (N - I + 1);
   end loop;

   Gap := N;
   loop
      Gap := Natural (Long_Float'Truncation (Long_Float (Gap) / 1.3));
      if Gap = 9 or else Gap = 10 then
         Gap := 11;
      end if;
      if Gap < 1 then
         Gap := 1;
      end if;
      Swapped := False;
      for I in 1 .. N - Gap loop
         if A (I) > A (I + Gap) then
            T := A (I);
            A (I) := A (I + Gap);
            A (I + Gap) := T;
            Swapped := True;
         end if;
      end loop;
      exit when Gap = 1 and then not Swapped;
   end loop;

   for I in 2 .. N loop
      if A (I) < A (I - 1) then
         Bad := Bad + 1;
      end if;
   end loop;
   Ada.Text_IO.Put_Line
     (Decimal (Long_Long_Integer (Bad)) & " " &
      Decimal (Long_Long_Integer (A (1))) & " " &
      Decimal (Long_Long_Integer (A (N))));
end Num_Comb;
