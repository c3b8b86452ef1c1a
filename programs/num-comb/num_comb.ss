;;; num-comb: comb sort of a vector of flonums (Chez Scheme 9.5 has no
;;; flvectors; they arrived in Chez Scheme 10)

(define n
  (let ([args (command-line-arguments)])
    (if (pair? args)
        (string->number (car args))
        10000000)))

(define a (make-vector n))
(do ([i 0 (+ i 1)]) ((= i n))
  (vector-set! a i (inexact (- n i))))

(let loop ([gap n])
  (let* ([gap (exact (floor (/ gap 1.3)))]
         [gap (if (or (= gap 9) (= gap 10)) 11 gap)]
         [gap (max gap 1)]
         [swapped #f])
    (do ([i 0 (+ i 1)]) ((>= i (- n gap)))
      (let ([x (vector-ref a i)]
            [y (vector-ref a (+ i gap))])
        (when (> x y)
          (vector-set! a i y)
          (vector-set! a (+ i gap) x)
          (set! swapped #t))))
    (unless (and (= gap 1) (not swapped))
      (loop gap))))

(define bad
  (let count ([i 1] [bad 0])
    (cond [(>= i n) bad]
          [(< (vector-ref a i) (vector-ref a (- i 1))) (count (+ i 1) (+ bad 1))]
          [else (count (+ i 1) bad)])))

(printf "~a ~a ~a\n"
        bad
        (exact (truncate (vector-ref a 0)))
        (exact (truncate (vector-ref a (- n 1)))))
