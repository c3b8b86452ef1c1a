--  str-comb: comb sort of an array of N Unbounded_String (Ada.Strings.Unbounded,
--  the standard variable-length string), compared with "<" (Character order).
with Ada.Command_Line;
with Ada.Strings.Fixed;
with Ada.Strings.Unbounded; use Ada.Strings.Unbounded;
with Ada.Text_IO;

procedure Str_Comb is
   type String_Array is array (Positive range <>) of Unbounded_String;
   type String_Array_Access is access String_Array;

   function Decimal (V : Integer) return String is
     (Ada.Strings.Fixed.Trim (Integer'Image (V), Ada.Strings.Left));

   N       : Natural := 10_000_000;
   A       : String_Array_Access;
   Gap     : Natural;
   Swapped : Boolean;
   T       : Unbounded_String;
   Bad     : Natural := 0;
begin
   if Ada.Command_Line.Argument_Count > 0 then
      N := Natural'Value (Ada.Command_Line.Argument (1));
   end if;

   --  A (I) = decimal (N - (I - 1)): the spec's a[i] with a 1-based index
   A := new String_Array (1 .. N);
   for I in A'Range loop
      A (I) := To_Unbounded_String (Decimal (N - I + 1));
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
     (Decimal (Bad) & " " & To_String (A (1)) & " " & To_String (A (N)));
end Str_Comb;
