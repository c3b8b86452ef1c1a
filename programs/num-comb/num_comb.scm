;;; num-comb: comb sort of a mutable vector of flonums

(define n
  (let ((args (cdr (command-line))))
    (if (pair? args)
        (string->number (car args))
        10000000)))

(define a (make-vector n))
(do ((i 0 (+ i 1))) ((= i n))
  (vector-set! a i (exact->inexact (- n i))))

(let loop ((gap n))
  (let* ((gap (inexact->exact (floor (/ gap 1.3))))
         (gap (if (or (= gap 9) (= gap 10)) 11 gap))
         (gap (max gap 1))
         (swapped #f))
    (do ((i 0 (+ i 1))) ((>= i (- n gap)))
      (let ((x (vector-ref a i))
            (y (vector-ref a (+ i gap))))
        (when (> x y)
          (vector-set! a i y)
          (vector-set! a (+ i gap) x)
          (set! swapped #t))))
    (unless (and (= gap 1) (not swapped))
      (loop gap))))

(define bad
  (let count ((i 1) (bad 0))
    (cond ((>= i n) bad)
          ((< (vector-ref a i) (vector-ref a (- i 1))) (count (+ i 1) (+ bad 1)))
          (else (count (+ i 1) bad)))))

(simple-format #t "~a ~a ~a\n"
               bad
               (inexact->exact (truncate (vector-ref a 0)))
               (inexact->exact (truncate (vector-ref a (- n 1)))))
