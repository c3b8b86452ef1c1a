! str-comb: comb sort of the decimal strings of N..1.
! Fortran's array of strings is a character array of one length: here the
! number of digits of N, blank-padded. A blank sorts before every digit, so
! Fortran's character comparison (ASCII for gfortran) gives the spec's plain
! byte-by-byte order ("1" < "10" < "9"), and trim() prints the strings.
program str_comb
  use, intrinsic :: iso_fortran_env, only: real64, error_unit
  implicit none
  integer :: n, i, bad, stat
  character(len=32) :: arg
  character(len=:), allocatable :: a(:)

  n = 10000000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=stat) n
    if (stat /= 0) then
      write (error_unit, '(2a)') 'invalid N: ', trim(arg)
      error stop 1
    end if
  end if

  write (arg, '(i0)') n
  allocate (character(len=len_trim(arg)) :: a(n))
  do i = 1, n
    write (a(i), '(i0)') n - i + 1
  end do

  call comb_sort(a)

  bad = 0
  do i = 2, n
    if (a(i) < a(i - 1)) bad = bad + 1
  end do
  print '(i0, 1x, a, 1x, a)', bad, trim(a(1)), trim(a(n))

contains

  subroutine comb_sort(a)
    character(len=*), intent(inout) :: a(:)
    character(len=len(a)) :: t
    integer :: gap, i, n
    logical :: swapped

    n = size(a)
    gap = n
    do
      gap = int(gap / 1.3_real64)
      if (gap == 9 .or. gap == 10) gap = 11
      if (gap < 1) gap = 1
      swapped = .false.
      do i = 1, n - gap
        if (a(i) > a(i + gap)) then
          t = a(i)
          a(i) = a(i + gap)
          a(i + gap) = t
          swapped = .true.
        end if
      end do
      if (gap == 1 .and. .not. swapped) exit
    end do
  end subroutine comb_sort
end program str_comb
