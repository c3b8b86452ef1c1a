;;; assoc: string -> flonum hashtable (R6RS make-hashtable with string-hash and
;;; string=?). set-or-inc! looks the key up once with Chez's hashtable-cell,
;;; which returns the key's (key . value) pair, inserting (key . #f) if the key
;;; is new: a #f value means the key was not there.

(define alphabet "0123456789aBcDeF")

;; base-16 digits of v, least significant digit first
(define (rhex v)
  (let loop ([v v] [digits '()])
    (if (zero? v)
        (list->string (reverse digits))
        (loop (quotient v 16)
              (cons (string-ref alphabet (remainder v 16)) digits)))))

(define (first-digit d)
  (if (> d 10)
      (first-digit (/ d 10))
      (exact (truncate d))))

(define n
  (let ([args (command-line-arguments)])
    (if (pair? args)
        (string->number (car args))
        12000000)))

(define table (make-hashtable string-hash string=?))

;; store set if key is new, else add inc; returns 1 for a duplicate, else 0
(define (set-or-inc! key set inc)
  (let ([cell (hashtable-cell table key #f)])
    (cond
      [(cdr cell) (set-cdr! cell (+ (cdr cell) inc)) 1]
      [else (set-cdr! cell (inexact set)) 0])))

(let loop ([z n] [dup1 0] [dup2 0] [dup3 0])
  (if (> z 0)
      (let* ([v2 (- n z)]
             [v3 (- (* 2 n) z)]
             [d1 (set-or-inc! (number->string z) z v2)]
             [d2 (set-or-inc! (number->string v2) v2 v3)]
             [d3 (set-or-inc! (rhex v3) v3 z)])
        (loop (- z 1) (+ dup1 d1) (+ dup2 d2) (+ dup3 d3)))
      (printf "~a ~a ~a\n" dup1 dup2 dup3)))

(let-values ([(keys vals) (hashtable-entries table)])
  (let ([total 0] [verify 0] [count 0])
    (vector-for-each
     (lambda (key value)
       (set! total (+ total (first-digit value)))
       (set! verify (+ verify (string-length key)))
       (set! count (+ count 1)))
     keys vals)
    (printf "~a ~a ~a\n" total verify count)))
