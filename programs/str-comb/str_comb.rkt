#lang racket/base
;; str-comb: comb sort of a mutable vector of strings (string<?, char order)

(define n
  (let ([args (current-command-line-arguments)])
    (if (> (vector-length args) 0)
        (string->number (vector-ref args 0))
        10000000)))

(define a (build-vector n (lambda (i) (number->string (- n i)))))

(let loop ([gap n])
  (let* ([gap (inexact->exact (floor (/ gap 1.3)))]
         [gap (if (or (= gap 9) (= gap 10)) 11 gap)]
         [gap (max gap 1)])
    (define swapped
      (for/fold ([swapped #f]) ([i (in-range 0 (- n gap))])
        (define x (vector-ref a i))
        (define y (vector-ref a (+ i gap)))
        (cond
          [(string<? y x)
           (vector-set! a i y)
           (vector-set! a (+ i gap) x)
           #t]
          [else swapped])))
    (unless (and (= gap 1) (not swapped))
      (loop gap))))

(define bad
  (for/sum ([i (in-range 1 n)])
    (if (string<? (vector-ref a i) (vector-ref a (- i 1))) 1 0)))
(printf "~a ~a ~a\n" bad (vector-ref a 0) (vector-ref a (- n 1)))
