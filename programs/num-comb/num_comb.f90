! num-comb: comb sort of N 64-bit reals (the spec's "array of N 64-bit floats")
program num_comb
  use, intrinsic :: iso_fortran_env, only: real64, int64, error_unit
  implicit none
  integer :: n, i, gap, bad, stat
  character(len=32) :: arg
  real(real64), allocatable :: a(:)
  real(real64) :: t
  logical :: swapped

  n = 10000000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=stat) n
    if (stat /= 0) then
      write (error_unit, '(2a)') 'invalid N: ', trim(arg)
      error stop 1
    end if
  end if

  ! a(i) = N - (i - 1): the spec's a[i] = N - i with Fortran's 1-based index
  allocate (a(n))
  do i = 1, n
    a(i) = n - i + 1
  end do

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

  bad = 0
  do i = 2, n
    if (a(i) < a(i - 1)) bad = bad + 1
  end do
  print '(i0, 1x, i0, 1x, i0)', bad, int(a(1), int64), int(a(n), int64)
end program num_comb
