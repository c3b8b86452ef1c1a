(set! *warn-on-reflection* true)

(defn comb-sort! [^objects a]
  (let [n (alength a)]
    (loop [gap n]
      (let [gap (long (/ gap 1.3))
            gap (if (or (== gap 9) (== gap 10)) 11 gap)
            gap (if (< gap 1) 1 gap)
            swapped (loop [i 0, swapped false]
                      (if (< i (- n gap))
                        (let [x (aget a i)
                              y (aget a (+ i gap))]
                          (if (pos? (compare x y))
                            (do (aset a i y)
                                (aset a (+ i gap) x)
                                (recur (inc i) true))
                            (recur (inc i) swapped)))
                        swapped))]
        (when-not (and (== gap 1) (not swapped))
          (recur gap))))))

(defn -main [& args]
  (let [n (if-let [arg (first args)] (Long/parseLong arg) 10000000)
        a (object-array n)]
    (dotimes [i n]
      (aset a i (str (- n i))))
    (comb-sort! a)
    (let [bad (loop [i 1, bad 0]
                (if (< i n)
                  (recur (inc i) (if (neg? (compare (aget a i) (aget a (dec i)))) (inc bad) bad))
                  bad))]
      (println bad (aget a 0) (aget a (dec n))))))

(apply -main *command-line-args*)
