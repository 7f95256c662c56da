;; frognano WASM SIMD kernels (hand-written; built by scripts/build-wasm.mjs into simdBytes.ts).
;;
;; exp: a lane-wise (f64x2) port of fdlibm's e_exp.c, the algorithm of V8's Math.exp
;; (src/base/ieee754.cc), with its branches turned into selects. Every operation is the
;; same IEEE-754 double operation in the same order (WASM has no implicit FMA), so the
;; result is bit-identical to Math.exp; src/numeric/simd/simd.test.ts checks it.
;; log: the same for fdlibm's e_log.c (V8's Math.log).
;;
;; fexp4: a fast f32x4 exp (Cody-Waite range reduction, cephes' expf polynomial, no division)
;; for the DPPO passes below, whose callers decide near-threshold tokens again in float64
;; (dppoMask.ts for tv_mask_f64, src/losses/kernels/dppoKernelSimd.ts for tv_loss_f32).
;;
;; Memory: imported, so one compiled module serves two kinds of instance: one with its own
;; memory (the JS side copies chunks in and out) and one on tfjs-backend-wasm's heap (the
;; DPPO loss kernel reads the tensors and writes the gradient in place).
(module
  (import "env" "memory" (memory 1))

  ;; exp(x) lane-wise on f64x2.
  (func $exp (param $x v128) (result v128)
    (local $bits v128) (local $hx v128) (local $ki v128) (local $k v128) (local $big v128)
    (local $t v128) (local $hi v128) (local $lo v128) (local $r v128) (local $tt v128)
    (local $c v128) (local $y v128) (local $low v128) (local $k1024 v128) (local $k1 v128)
    (local $res v128) (local $s2 v128)
    (local.set $bits (local.get $x))
    ;; hx = high word of |x|
    (local.set $hx (v128.and (i64x2.shr_u (local.get $bits) (i32.const 32)) (v128.const i64x2 0x7fffffff 0x7fffffff)))
    ;; ki = trunc(x * invln2 + copysign(0.5, x))
    (local.set $ki
      (i32x4.trunc_sat_f64x2_s_zero
        (f64x2.add
          (f64x2.mul (local.get $x) (v128.const f64x2 0x1.71547652b82fep+0 0x1.71547652b82fep+0))
          (v128.or (v128.const f64x2 0.5 0.5) (v128.and (local.get $bits) (v128.const i64x2 0x8000000000000000 0x8000000000000000))))))
    ;; |x| > 0.5 ln2 (by the high word, as fdlibm): k = ki, else k = 0
    (local.set $big (i64x2.gt_s (local.get $hx) (v128.const i64x2 0x3FD62E42 0x3FD62E42)))
    (local.set $k (v128.and (i64x2.extend_low_i32x4_s (local.get $ki)) (local.get $big)))
    (local.set $t (v128.and (f64x2.convert_low_i32x4_s (local.get $ki)) (local.get $big)))
    ;; hi = x - t*ln2HI, lo = t*ln2LO, r = hi - lo
    (local.set $hi (f64x2.sub (local.get $x) (f64x2.mul (local.get $t) (v128.const f64x2 0x1.62e42fee00000p-1 0x1.62e42fee00000p-1))))
    (local.set $lo (f64x2.mul (local.get $t) (v128.const f64x2 0x1.a39ef35793c76p-33 0x1.a39ef35793c76p-33)))
    (local.set $r (f64x2.sub (local.get $hi) (local.get $lo)))
    (local.set $tt (f64x2.mul (local.get $r) (local.get $r)))
    ;; c = r - tt*(P1 + tt*(P2 + tt*(P3 + tt*(P4 + tt*P5))))
    (local.set $c
      (f64x2.sub (local.get $r)
        (f64x2.mul (local.get $tt)
          (f64x2.add (v128.const f64x2 0x1.555555555553ep-3 0x1.555555555553ep-3)
            (f64x2.mul (local.get $tt)
              (f64x2.add (v128.const f64x2 -0x1.6c16c16bebd93p-9 -0x1.6c16c16bebd93p-9)
                (f64x2.mul (local.get $tt)
                  (f64x2.add (v128.const f64x2 0x1.1566aaf25de2cp-14 0x1.1566aaf25de2cp-14)
                    (f64x2.mul (local.get $tt)
                      (f64x2.add (v128.const f64x2 -0x1.bbd41c5d26bf1p-20 -0x1.bbd41c5d26bf1p-20)
                        (f64x2.mul (local.get $tt) (v128.const f64x2 0x1.6376972bea4d0p-25 0x1.6376972bea4d0p-25))))))))))))
    ;; y = 1 - ((lo - (r*c)/(2 - c)) - hi)
    (local.set $y
      (f64x2.sub (v128.const f64x2 1 1)
        (f64x2.sub
          (f64x2.sub (local.get $lo)
            (f64x2.div (f64x2.mul (local.get $r) (local.get $c)) (f64x2.sub (v128.const f64x2 2 2) (local.get $c))))
          (local.get $hi))))
    ;; scale by 2^k: k < -1021 -> 2^(k+1000) * 2^-1000; k == 1024 -> 2^1023 * 2
    (local.set $low (i64x2.lt_s (local.get $k) (v128.const i64x2 -1021 -1021)))
    (local.set $k1024 (i64x2.eq (local.get $k) (v128.const i64x2 1024 1024)))
    (local.set $k1
      (i64x2.sub
        (i64x2.add (local.get $k) (v128.and (local.get $low) (v128.const i64x2 1000 1000)))
        (v128.and (local.get $k1024) (v128.const i64x2 1 1))))
    (local.set $s2
      (v128.bitselect (v128.const f64x2 0x1p-1000 0x1p-1000)
        (v128.bitselect (v128.const f64x2 2 2) (v128.const f64x2 1 1) (local.get $k1024))
        (local.get $low)))
    (local.set $res
      (f64x2.mul
        (f64x2.mul (local.get $y) (i64x2.shl (i64x2.add (local.get $k1) (v128.const i64x2 1023 1023)) (i32.const 52)))
        (local.get $s2)))
    ;; |x| < 2^-28: 1 + x
    (local.set $res
      (v128.bitselect (f64x2.add (v128.const f64x2 1 1) (local.get $x)) (local.get $res)
        (i64x2.lt_s (local.get $hx) (v128.const i64x2 0x3E300000 0x3E300000))))
    ;; x == 1: E (fdlibm's special case)
    (local.set $res
      (v128.bitselect (v128.const f64x2 0x1.5bf0a8b145769p+1 0x1.5bf0a8b145769p+1) (local.get $res)
        (f64x2.eq (local.get $x) (v128.const f64x2 1 1))))
    ;; overflow, underflow, NaN
    (local.set $res
      (v128.bitselect (v128.const f64x2 inf inf) (local.get $res)
        (f64x2.gt (local.get $x) (v128.const f64x2 0x1.62e42fefa39efp+9 0x1.62e42fefa39efp+9))))
    (local.set $res
      (v128.bitselect (v128.const f64x2 0 0) (local.get $res)
        (f64x2.lt (local.get $x) (v128.const f64x2 -0x1.74910d52d3051p+9 -0x1.74910d52d3051p+9))))
    (v128.bitselect (local.get $x) (local.get $res) (f64x2.ne (local.get $x) (local.get $x))))

  ;; dst[i] = exp(src[i]) for f64 src, i < n (rounded up to even: buffers hold one spare slot).
  (func (export "exp_f64") (param $src i32) (param $dst i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (v128.store (local.get $dst) (call $exp (v128.load (local.get $src))))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $next))))

  ;; dst[i] = exp(f64(src[i])) for f32 src (promoted exactly), i < n (rounded up to even).
  (func (export "exp_f32") (param $src i32) (param $dst i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (v128.store (local.get $dst) (call $exp (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $src)))))
        (local.set $src (i32.add (local.get $src) (i32.const 8)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $next))))

  ;; log(x) lane-wise on f64x2: fdlibm's e_log.c (V8's Math.log), branches as selects.
  (func $log (param $x v128) (result v128)
    (local $bits v128) (local $hx v128) (local $sub v128) (local $x2 v128) (local $b2 v128)
    (local $k v128) (local $hxm v128) (local $i v128) (local $xn v128) (local $f v128)
    (local $dk v128) (local $small v128) (local $s v128) (local $z v128) (local $w v128)
    (local $t1 v128) (local $t2 v128) (local $R v128) (local $hfsq v128) (local $big v128)
    (local $resSmall v128) (local $resA v128) (local $resB v128) (local $res v128)
    (local.set $bits (local.get $x))
    (local.set $hx (i64x2.shr_s (local.get $bits) (i32.const 32)))
    ;; x < 2^-1022 (subnormal; zero and negatives are replaced below): scale by 2^54
    (local.set $sub (i64x2.lt_s (local.get $hx) (v128.const i64x2 0x00100000 0x00100000)))
    (local.set $x2 (v128.bitselect (f64x2.mul (local.get $x) (v128.const f64x2 0x1p+54 0x1p+54)) (local.get $x) (local.get $sub)))
    (local.set $b2 (local.get $x2))
    (local.set $hx (i64x2.shr_s (local.get $b2) (i32.const 32)))
    ;; k = (hx >> 20) - 1023 (- 54 if scaled)
    (local.set $k
      (i64x2.sub
        (i64x2.sub (i64x2.shr_s (local.get $hx) (i32.const 20)) (v128.const i64x2 1023 1023))
        (v128.and (local.get $sub) (v128.const i64x2 54 54))))
    (local.set $hxm (v128.and (local.get $hx) (v128.const i64x2 0x000fffff 0x000fffff)))
    (local.set $i (v128.and (i64x2.add (local.get $hxm) (v128.const i64x2 0x95f64 0x95f64)) (v128.const i64x2 0x100000 0x100000)))
    ;; x normalised into [sqrt(2)/2, sqrt(2)): high word hxm | (i ^ 0x3ff00000), low word kept
    (local.set $xn
      (v128.or
        (i64x2.shl (v128.or (local.get $hxm) (v128.xor (local.get $i) (v128.const i64x2 0x3ff00000 0x3ff00000))) (i32.const 32))
        (v128.and (local.get $b2) (v128.const i64x2 0xffffffff 0xffffffff))))
    (local.set $k (i64x2.add (local.get $k) (i64x2.shr_u (local.get $i) (i32.const 20))))
    (local.set $f (f64x2.sub (local.get $xn) (v128.const f64x2 1 1)))
    ;; dk = (double)k: the low 32 bits of each i64 lane, converted
    (local.set $dk (f64x2.convert_low_i32x4_s (i8x16.shuffle 0 1 2 3 8 9 10 11 0 1 2 3 8 9 10 11 (local.get $k) (local.get $k))))
    ;; |f| < 2^-20: R = f*f*(0.5 - f/3); dk*ln2_hi - ((R - dk*ln2_lo) - f)
    (local.set $small
      (i64x2.lt_s (v128.and (i64x2.add (local.get $hxm) (v128.const i64x2 2 2)) (v128.const i64x2 0x000fffff 0x000fffff)) (v128.const i64x2 3 3)))
    (local.set $resSmall
      (f64x2.sub
        (f64x2.mul (local.get $dk) (v128.const f64x2 0x1.62e42fee00000p-1 0x1.62e42fee00000p-1))
        (f64x2.sub
          (f64x2.sub
            (f64x2.mul (f64x2.mul (local.get $f) (local.get $f))
              (f64x2.sub (v128.const f64x2 0.5 0.5) (f64x2.mul (v128.const f64x2 0x1.5555555555555p-2 0x1.5555555555555p-2) (local.get $f))))
            (f64x2.mul (local.get $dk) (v128.const f64x2 0x1.a39ef35793c76p-33 0x1.a39ef35793c76p-33)))
          (local.get $f))))
    (local.set $s (f64x2.div (local.get $f) (f64x2.add (v128.const f64x2 2 2) (local.get $f))))
    (local.set $z (f64x2.mul (local.get $s) (local.get $s)))
    (local.set $w (f64x2.mul (local.get $z) (local.get $z)))
    (local.set $t1
      (f64x2.mul (local.get $w)
        (f64x2.add (v128.const f64x2 0x1.999999997fa04p-2 0x1.999999997fa04p-2)
          (f64x2.mul (local.get $w)
            (f64x2.add (v128.const f64x2 0x1.c71c51d8e78afp-3 0x1.c71c51d8e78afp-3)
              (f64x2.mul (local.get $w) (v128.const f64x2 0x1.39a09d078c69fp-3 0x1.39a09d078c69fp-3)))))))
    (local.set $t2
      (f64x2.mul (local.get $z)
        (f64x2.add (v128.const f64x2 0x1.5555555555593p-1 0x1.5555555555593p-1)
          (f64x2.mul (local.get $w)
            (f64x2.add (v128.const f64x2 0x1.2492494229359p-2 0x1.2492494229359p-2)
              (f64x2.mul (local.get $w)
                (f64x2.add (v128.const f64x2 0x1.7466496cb03dep-3 0x1.7466496cb03dep-3)
                  (f64x2.mul (local.get $w) (v128.const f64x2 0x1.2f112df3e5244p-3 0x1.2f112df3e5244p-3)))))))))
    (local.set $R (f64x2.add (local.get $t2) (local.get $t1)))
    ;; (hx - 0x6147a) | (0x6b851 - hx) > 0
    (local.set $big
      (i64x2.gt_s
        (v128.or (i64x2.sub (local.get $hxm) (v128.const i64x2 0x6147a 0x6147a)) (i64x2.sub (v128.const i64x2 0x6b851 0x6b851) (local.get $hxm)))
        (v128.const i64x2 0 0)))
    (local.set $hfsq (f64x2.mul (f64x2.mul (v128.const f64x2 0.5 0.5) (local.get $f)) (local.get $f)))
    ;; dk*ln2_hi - ((hfsq - (s*(hfsq+R) + dk*ln2_lo)) - f)
    (local.set $resA
      (f64x2.sub
        (f64x2.mul (local.get $dk) (v128.const f64x2 0x1.62e42fee00000p-1 0x1.62e42fee00000p-1))
        (f64x2.sub
          (f64x2.sub (local.get $hfsq)
            (f64x2.add (f64x2.mul (local.get $s) (f64x2.add (local.get $hfsq) (local.get $R)))
              (f64x2.mul (local.get $dk) (v128.const f64x2 0x1.a39ef35793c76p-33 0x1.a39ef35793c76p-33))))
          (local.get $f))))
    ;; dk*ln2_hi - ((s*(f-R) - dk*ln2_lo) - f)
    (local.set $resB
      (f64x2.sub
        (f64x2.mul (local.get $dk) (v128.const f64x2 0x1.62e42fee00000p-1 0x1.62e42fee00000p-1))
        (f64x2.sub
          (f64x2.sub (f64x2.mul (local.get $s) (f64x2.sub (local.get $f) (local.get $R)))
            (f64x2.mul (local.get $dk) (v128.const f64x2 0x1.a39ef35793c76p-33 0x1.a39ef35793c76p-33)))
          (local.get $f))))
    (local.set $res
      (v128.bitselect (local.get $resSmall) (v128.bitselect (local.get $resA) (local.get $resB) (local.get $big)) (local.get $small)))
    ;; +Infinity and NaN: x + x; x < 0: NaN; x = ±0: -Infinity
    (local.set $res
      (v128.bitselect (f64x2.add (local.get $x) (local.get $x)) (local.get $res)
        (v128.or (i64x2.ge_s (i64x2.shr_s (local.get $bits) (i32.const 32)) (v128.const i64x2 0x7ff00000 0x7ff00000))
                 (f64x2.ne (local.get $x) (local.get $x)))))
    (local.set $res (v128.bitselect (v128.const f64x2 nan nan) (local.get $res) (f64x2.lt (local.get $x) (v128.const f64x2 0 0))))
    (v128.bitselect (v128.const f64x2 -inf -inf) (local.get $res) (f64x2.eq (local.get $x) (v128.const f64x2 0 0))))

  ;; dst[i] = log(src[i]) for f64 src, i < n (rounded up to even).
  (func (export "log_f64") (param $src i32) (param $dst i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (v128.store (local.get $dst) (call $log (v128.load (local.get $src))))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $next))))

  ;; ---------------------------------------------------------------------------------------
  ;; fexp4, a fast exp on f32x4 (division-free): x = k ln2 + r (|r| <= ln2/2, Cody-Waite with cephes' two-part ln2), e^r by cephes' expf
  ;; polynomial, 2^k by building the exponent bits. Inputs are clamped to
  ;; [-87.3365478515625, 88]: below, 0 (e^x < 2^-126); above 88, e^88 (the DPPO passes only
  ;; use it on log-probs, <= 1e-4 once validated); NaN stays NaN. Largest
  ;; relative error against Math.exp over every float32 in [-87.34, 1e-4] (checked exhaustively,
  ;; see simd.test.ts): 8.14e-8 (2^-23.55), relative to max(e^x, 2^-126).
  ;;
  ;; The reference text is the loop of $expChunk (the accuracy test runs it through fexp_f32);
  ;; the DPPO passes hold the same text inline in their loops, on their own locals (V8 does
  ;; not inline wasm calls, and one pass with p, q in registers beats writing them to memory
  ;; first); simd.test.ts checks every inline copy equals the reference, names aside.
  ;; Constants: each function copies them from the mutable globals $G_* (and $K_*) into locals
  ;; before its loop. A v128.const, even one set into a local, is folded by TurboFan and built
  ;; again at every use inside the loop (three instructions each); a mutable global's value
  ;; cannot be folded, so it stays in a register (or a stack slot) across the loop.
  (global $G_xmin (mut v128) (v128.const f32x4 -87.3365478515625 -87.3365478515625 -87.3365478515625 -87.3365478515625))
  (global $G_xmax (mut v128) (v128.const f32x4 88 88 88 88))
  (global $G_log2e (mut v128) (v128.const f32x4 1.4426950216293335 1.4426950216293335 1.4426950216293335 1.4426950216293335))
  (global $G_shift (mut v128) (v128.const f32x4 12582912 12582912 12582912 12582912))
  (global $G_c1 (mut v128) (v128.const f32x4 0.693359375 0.693359375 0.693359375 0.693359375))
  (global $G_c2 (mut v128) (v128.const f32x4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4 -2.12194440e-4))
  (global $G_p0 (mut v128) (v128.const f32x4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4 1.9875691500e-4))
  (global $G_p1 (mut v128) (v128.const f32x4 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3 1.3981999507e-3))
  (global $G_p2 (mut v128) (v128.const f32x4 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3 8.3334519073e-3))
  (global $G_p3 (mut v128) (v128.const f32x4 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2 4.1665795894e-2))
  (global $G_p4 (mut v128) (v128.const f32x4 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1 1.6666665459e-1))
  (global $G_p5 (mut v128) (v128.const f32x4 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1 5.0000001201e-1))
  (global $G_one (mut v128) (v128.const f32x4 1 1 1 1))
  (global $G_bias (mut v128) (v128.const i32x4 127 127 127 127))
  ;; dst[i] (f32) = fexp4(src[i]) (f32) for i < n (a multiple of 4).
  (func $expChunk (param $src i32) (param $dst i32) (param $n i32)
    (local $end i32) (local $x v128) (local $xc v128) (local $t v128) (local $k v128) (local $r v128) (local $y v128)
    (local $xmin v128) (local $xmax v128) (local $log2e v128) (local $shift v128) (local $c1 v128) (local $c2 v128)
    (local $p0 v128) (local $p1 v128) (local $p2 v128) (local $p3 v128) (local $p4 v128) (local $p5 v128) (local $one v128)
    (local $bias v128)
    (local.set $xmin (global.get $G_xmin))
    (local.set $xmax (global.get $G_xmax))
    (local.set $log2e (global.get $G_log2e))
    (local.set $shift (global.get $G_shift))
    (local.set $c1 (global.get $G_c1))
    (local.set $c2 (global.get $G_c2))
    (local.set $p0 (global.get $G_p0))
    (local.set $p1 (global.get $G_p1))
    (local.set $p2 (global.get $G_p2))
    (local.set $p3 (global.get $G_p3))
    (local.set $p4 (global.get $G_p4))
    (local.set $p5 (global.get $G_p5))
    (local.set $one (global.get $G_one))
    (local.set $bias (global.get $G_bias))
    (local.set $end (i32.add (local.get $dst) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (local.set $x (v128.load (local.get $src)))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        ;; $y = fexp4($x) (the reference copy: every inline copy below is this text, names aside)
        ;; clamp (pmax/pmin with x first keep a NaN)
        (local.set $xc (f32x4.pmin (f32x4.pmax (local.get $x) (local.get $xmin)) (local.get $xmax)))
        ;; t = x log2(e) + 1.5 * 2^23: its low mantissa bits hold k = round(x log2 e)
        (local.set $t (f32x4.add (f32x4.mul (local.get $xc) (local.get $log2e)) (local.get $shift)))
        (local.set $k (f32x4.sub (local.get $t) (local.get $shift)))
        ;; r = (x - k C1) - k C2, C1 = 0.693359375 (9 bits: k C1 and x - k C1 are exact), C2 = -2.12194440e-4
        ;; e^r = 1 + r + r^2 (p5 + r (p4 + r (p3 + r (p2 + r (p1 + r p0)))))  (cephes expf)
        (local.set $r (f32x4.sub (f32x4.sub (local.get $xc) (f32x4.mul (local.get $k) (local.get $c1))) (f32x4.mul (local.get $k) (local.get $c2))))
        (local.set $y
          (f32x4.add (local.get $one)
            (f32x4.add (local.get $r)
              (f32x4.mul (f32x4.mul (local.get $r) (local.get $r))
                (f32x4.add (local.get $p5)
                  (f32x4.mul (local.get $r)
                    (f32x4.add (local.get $p4)
                      (f32x4.mul (local.get $r)
                        (f32x4.add (local.get $p3)
                          (f32x4.mul (local.get $r)
                            (f32x4.add (local.get $p2)
                              (f32x4.mul (local.get $r)
                                (f32x4.add (local.get $p1) (f32x4.mul (local.get $r) (local.get $p0)))))))))))))))
        ;; times 2^k: exponent bits (k + 127) << 23 (k in [-126, 127] after the clamp); 0 below the clamp
        (local.set $y (f32x4.mul (local.get $y) (i32x4.shl (i32x4.add (local.get $t) (local.get $bias)) (i32.const 23))))
        (local.set $y (v128.andnot (local.get $y) (f32x4.lt (local.get $x) (local.get $xmin))))
        (v128.store (local.get $dst) (local.get $y))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $next))))

  ;; dst[i] = fexp4(src[i]), f32 in and out, n a multiple of 4 (for the accuracy test).
  (func (export "fexp_f32") (param $src i32) (param $dst i32) (param $n i32)
    (call $expChunk (local.get $src) (local.get $dst) (local.get $n)))

  ;; ---------------------------------------------------------------------------------------
  ;; DPPO Binary-TV passes (issue #13). The rule, with p = fexp4(lp), q = fexp4(lq) (float32):
  ;;   d = (p - q) - thr, thr = A > 0 ? hi : -lo;   drop = A > 0 ? d > 0 : d < 0
  ;;   near = |d| <= $win
  ;; A near token is not decided here: the caller decides it again in float64 with Math.exp.
  ;; $win (from the caller) is 2^-18 (2 e^1e-4 + max(lo, hi)) + 2^-22: at least 8 times the
  ;; largest possible gap between d and the float64 (p - q) - thr for log-probs <= 1e-4 (the
  ;; error of fexp4, 2^-23.55 relative, the float32 rounding of p - q, of the thresholds and,
  ;; for float64 inputs, of the inputs themselves; the proof is at tvNearWindow in expInto.ts),
  ;; so every other decision equals the float64 rule.

  ;; Counters the passes add to (the caller resets and reads them).
  (global $ones (export "ones") (mut i32) (i32.const 0))
  (global $bad (export "bad") (mut i32) (i32.const 0))
  ;; near tokens of the last tv_loss_f32 call
  (global $nearN (export "nearN") (mut i32) (i32.const 0))

  (global $K_sign (mut v128) (v128.const i32x4 0x80000000 0x80000000 0x80000000 0x80000000))
  (global $K_one (mut v128) (v128.const f32x4 1 1 1 1))
  (global $K_two (mut v128) (v128.const f32x4 2 2 2 2))
  (global $K_one4 (mut v128) (v128.const f32x4 1 1 1 1))
  (global $K_ok01 (mut v128) (v128.const i32x4 -1 -1 -1 -1))
  (global $K_lrIn (mut v128) (v128.const f32x4 19.9999847412109375 19.9999847412109375 19.9999847412109375 19.9999847412109375))
  (global $K_lpMin (mut v128) (v128.const f32x4 -87 -87 -87 -87))
  (global $K_nan (mut v128) (v128.const f32x4 nan nan nan nan))
  (global $K_ones (mut v128) (v128.const i32x4 -1 -1 -1 -1))

  (func $sum4 (param $v v128) (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v)))
      (i32.add (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v)))))

  ;; The tv mask of n (a multiple of 4) float64 tokens, one pass: out[t] (f64) = 1 keep, 0 drop;
  ;; a near token (undecided) gets 1 and its index (from 0) is appended to the near list at
  ;; $list (i32, up to 4n bytes). Returns the number of near tokens. Sets $bad to 1 when some
  ;; value may be bad: a log-prob NaN, infinite or >= $tol (the caller passes the largest
  ;; float32 <= its tolerance: float64 log-probs are compared after rounding to float32, so
  ;; every value above the tolerance is caught, and values within a float32 step below it are
  ;; caught spuriously), beyond float32 range, or an advantage not finite (or beyond 1e307: then
  ;; spuriously). A flag sends the caller to its exact path.
  (func (export "tv_mask_f64")
    (param $lp i32) (param $lq i32) (param $a i32) (param $out i32) (param $n i32) (param $list i32)
    (param $lo f32) (param $hi f32) (param $win f32) (param $tol f32) (result i32)
    (local $i i32) (local $nl i32)
    (local $xmin v128) (local $xmax v128) (local $log2e v128) (local $shift v128) (local $c1 v128) (local $c2 v128) (local $p0 v128) (local $p1 v128) (local $p2 v128) (local $p3 v128) (local $p4 v128) (local $p5 v128) (local $one v128) (local $bias v128)
    (local $xc0 v128) (local $t0 v128) (local $k0 v128) (local $r0 v128) (local $xc1 v128) (local $t1 v128) (local $k1 v128) (local $r1 v128)
    (local $hi4 v128) (local $nlo4 v128) (local $win4 v128) (local $sign v128) (local $zero v128)
    (local $x v128) (local $y v128) (local $P v128) (local $Q v128) (local $a0 v128) (local $a1 v128)
    (local $finA v128) (local $fin v128) (local $mx v128) (local $pos v128) (local $d v128)
    (local $drop v128) (local $near v128) (local $o v128)
    (local.set $xmin (global.get $G_xmin))
    (local.set $xmax (global.get $G_xmax))
    (local.set $log2e (global.get $G_log2e))
    (local.set $shift (global.get $G_shift))
    (local.set $c1 (global.get $G_c1))
    (local.set $c2 (global.get $G_c2))
    (local.set $p0 (global.get $G_p0))
    (local.set $p1 (global.get $G_p1))
    (local.set $p2 (global.get $G_p2))
    (local.set $p3 (global.get $G_p3))
    (local.set $p4 (global.get $G_p4))
    (local.set $p5 (global.get $G_p5))
    (local.set $one (global.get $G_one))
    (local.set $bias (global.get $G_bias))
    (local.set $nl (local.get $list))
    (local.set $hi4 (f32x4.splat (local.get $hi)))
    (local.set $nlo4 (f32x4.neg (f32x4.splat (local.get $lo))))
    (local.set $win4 (f32x4.splat (local.get $win)))
    (local.set $sign (global.get $K_sign))
    (local.set $mx (f32x4.splat (f32.const -inf)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        ;; the log-probs rounded to float32
        (local.set $x
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load (local.get $lp)))
            (f32x4.demote_f64x2_zero (v128.load offset=16 (local.get $lp)))))
        (local.set $y
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (v128.load (local.get $lq)))
            (f32x4.demote_f64x2_zero (v128.load offset=16 (local.get $lq)))))
        (local.set $a0 (v128.load (local.get $a)))
        (local.set $a1 (v128.load offset=16 (local.get $a)))
        ;; validation: x*0 + y*0 is NaN iff one is not finite (float32); a*0 likewise (float64,
        ;; the sum overflows only beyond 1e307); running max of the log-probs
        (local.set $fin (f32x4.add (local.get $fin) (f32x4.add (f32x4.mul (local.get $x) (local.get $zero)) (f32x4.mul (local.get $y) (local.get $zero)))))
        (local.set $finA (f64x2.add (local.get $finA) (f64x2.add (f64x2.mul (local.get $a0) (local.get $zero)) (f64x2.mul (local.get $a1) (local.get $zero)))))
        (local.set $mx (f32x4.pmax (local.get $mx) (f32x4.pmax (local.get $x) (local.get $y))))
        ;; $P = fexp4($x) (the same operations as $expChunk)
        (local.set $xc0 (f32x4.pmin (f32x4.pmax (local.get $x) (local.get $xmin)) (local.get $xmax)))
        (local.set $t0 (f32x4.add (f32x4.mul (local.get $xc0) (local.get $log2e)) (local.get $shift)))
        (local.set $k0 (f32x4.sub (local.get $t0) (local.get $shift)))
        (local.set $r0 (f32x4.sub (f32x4.sub (local.get $xc0) (f32x4.mul (local.get $k0) (local.get $c1))) (f32x4.mul (local.get $k0) (local.get $c2))))
        (local.set $P
          (f32x4.add (local.get $one)
            (f32x4.add (local.get $r0)
              (f32x4.mul (f32x4.mul (local.get $r0) (local.get $r0))
                (f32x4.add (local.get $p5)
                  (f32x4.mul (local.get $r0)
                    (f32x4.add (local.get $p4)
                      (f32x4.mul (local.get $r0)
                        (f32x4.add (local.get $p3)
                          (f32x4.mul (local.get $r0)
                            (f32x4.add (local.get $p2)
                              (f32x4.mul (local.get $r0)
                                (f32x4.add (local.get $p1) (f32x4.mul (local.get $r0) (local.get $p0)))))))))))))))
        (local.set $P (f32x4.mul (local.get $P) (i32x4.shl (i32x4.add (local.get $t0) (local.get $bias)) (i32.const 23))))
        (local.set $P (v128.andnot (local.get $P) (f32x4.lt (local.get $x) (local.get $xmin))))
        ;; $Q = fexp4($y) (the same operations as $expChunk)
        (local.set $xc1 (f32x4.pmin (f32x4.pmax (local.get $y) (local.get $xmin)) (local.get $xmax)))
        (local.set $t1 (f32x4.add (f32x4.mul (local.get $xc1) (local.get $log2e)) (local.get $shift)))
        (local.set $k1 (f32x4.sub (local.get $t1) (local.get $shift)))
        (local.set $r1 (f32x4.sub (f32x4.sub (local.get $xc1) (f32x4.mul (local.get $k1) (local.get $c1))) (f32x4.mul (local.get $k1) (local.get $c2))))
        (local.set $Q
          (f32x4.add (local.get $one)
            (f32x4.add (local.get $r1)
              (f32x4.mul (f32x4.mul (local.get $r1) (local.get $r1))
                (f32x4.add (local.get $p5)
                  (f32x4.mul (local.get $r1)
                    (f32x4.add (local.get $p4)
                      (f32x4.mul (local.get $r1)
                        (f32x4.add (local.get $p3)
                          (f32x4.mul (local.get $r1)
                            (f32x4.add (local.get $p2)
                              (f32x4.mul (local.get $r1)
                                (f32x4.add (local.get $p1) (f32x4.mul (local.get $r1) (local.get $p0)))))))))))))))
        (local.set $Q (f32x4.mul (local.get $Q) (i32x4.shl (i32x4.add (local.get $t1) (local.get $bias)) (i32.const 23))))
        (local.set $Q (v128.andnot (local.get $Q) (f32x4.lt (local.get $y) (local.get $xmin))))
        ;; A > 0 in float64, narrowed to four i32 lanes
        (local.set $pos
          (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27
            (f64x2.gt (local.get $a0) (local.get $zero))
            (f64x2.gt (local.get $a1) (local.get $zero))))
        ;; d = (p - q) - thr; drop: d > 0 for A > 0, d < 0 otherwise (sign flipped, then > 0)
        (local.set $d (f32x4.sub (f32x4.sub (local.get $P) (local.get $Q)) (v128.bitselect (local.get $hi4) (local.get $nlo4) (local.get $pos))))
        (local.set $drop (f32x4.gt (v128.xor (local.get $d) (v128.andnot (local.get $sign) (local.get $pos))) (local.get $zero)))
        (local.set $near (f32x4.le (f32x4.abs (local.get $d)) (local.get $win4)))
        ;; 1 keep, 0 drop, widened to f64
        (local.set $o (v128.andnot (local.get $one) (local.get $drop)))
        (v128.store (local.get $out) (f64x2.promote_low_f32x4 (local.get $o)))
        (v128.store offset=16 (local.get $out)
          (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $o) (local.get $o))))
        ;; near tokens: their indices (from the chunk start) go to the near list
        (if (v128.any_true (local.get $near))
          (then
            (if (i32x4.extract_lane 0 (local.get $near)) (then (i32.store (local.get $nl) (local.get $i)) (local.set $nl (i32.add (local.get $nl) (i32.const 4)))))
            (if (i32x4.extract_lane 1 (local.get $near)) (then (i32.store (local.get $nl) (i32.add (local.get $i) (i32.const 1))) (local.set $nl (i32.add (local.get $nl) (i32.const 4)))))
            (if (i32x4.extract_lane 2 (local.get $near)) (then (i32.store (local.get $nl) (i32.add (local.get $i) (i32.const 2))) (local.set $nl (i32.add (local.get $nl) (i32.const 4)))))
            (if (i32x4.extract_lane 3 (local.get $near)) (then (i32.store (local.get $nl) (i32.add (local.get $i) (i32.const 3))) (local.set $nl (i32.add (local.get $nl) (i32.const 4)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (local.set $lp (i32.add (local.get $lp) (i32.const 32)))
        (local.set $lq (i32.add (local.get $lq) (i32.const 32)))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $out (i32.add (local.get $out) (i32.const 32)))
        (br $next)))
    (if (i32.or
          (i32.or
            (v128.any_true (f32x4.ne (local.get $fin) (local.get $zero)))
            (v128.any_true (f64x2.ne (local.get $finA) (local.get $zero))))
          (v128.any_true (f32x4.ge (local.get $mx) (f32x4.splat (local.get $tol)))))
      (then (global.set $bad (i32.const 1))))
    (i32.shr_u (i32.sub (local.get $nl) (local.get $list)) (i32.const 2)))

  ;; Validation of the four float32 tensors of the DPPO loss, n a multiple of 4: $bad |= 1
  ;; when a value of lp, lq, a is not finite or a log-prob exceeds $tol (the largest float32
  ;; <= the tolerance), |= 2 when a mask value is not 0 or 1; adds the mask's ones to $ones.
  (func (export "check_f32") (param $lp i32) (param $lq i32) (param $a i32) (param $m i32) (param $n i32) (param $tol f32)
    (local $end i32) (local $x v128) (local $y v128) (local $fin v128) (local $mx v128) (local $ok01 v128) (local $onesAcc v128) (local $one v128)
    (local $zero v128) (local $one4 v128)
    (local.set $one4 (global.get $K_one4))
    (local.set $mx (f32x4.splat (f32.const -inf)))
    (local.set $ok01 (global.get $K_ok01))
    (local.set $end (i32.add (local.get $lp) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $lp) (local.get $end)))
        (local.set $x (v128.load (local.get $lp)))
        (local.set $y (v128.load (local.get $lq)))
        ;; x*0 + y*0 + a*0 is NaN iff one is not finite (float32 products: no overflow)
        (local.set $fin
          (f32x4.add (local.get $fin)
            (f32x4.add
              (f32x4.add (f32x4.mul (local.get $x) (local.get $zero)) (f32x4.mul (local.get $y) (local.get $zero)))
              (f32x4.mul (v128.load (local.get $a)) (local.get $zero)))))
        (local.set $mx (f32x4.pmax (local.get $mx) (f32x4.pmax (local.get $x) (local.get $y))))
        (local.set $x (v128.load (local.get $m)))
        (local.set $one (f32x4.eq (local.get $x) (local.get $one4)))
        (local.set $ok01 (v128.and (local.get $ok01) (v128.or (local.get $one) (f32x4.eq (local.get $x) (local.get $zero)))))
        (local.set $onesAcc (i32x4.sub (local.get $onesAcc) (local.get $one)))
        (local.set $lp (i32.add (local.get $lp) (i32.const 16)))
        (local.set $lq (i32.add (local.get $lq) (i32.const 16)))
        (local.set $a (i32.add (local.get $a) (i32.const 16)))
        (local.set $m (i32.add (local.get $m) (i32.const 16)))
        (br $next)))
    (global.set $ones (i32.add (global.get $ones) (call $sum4 (local.get $onesAcc))))
    (if (i32.or
          (v128.any_true (f32x4.ne (local.get $fin) (local.get $zero)))
          (v128.any_true (f32x4.gt (local.get $mx) (f32x4.splat (local.get $tol)))))
      (then (global.set $bad (i32.or (global.get $bad) (i32.const 1)))))
    (if (i32.eqz (i32x4.all_true (local.get $ok01)))
      (then (global.set $bad (i32.or (global.get $bad) (i32.const 2))))))

  ;; The tv loss of n (a multiple of 4) float32 tokens (the FrognanoDppo kernel, contract in
  ;; src/losses/kernels/dppoKernel.ts), one pass: writes g[t] = w_t keep_t g_t (f32) and returns
  ;; sum_t w_t keep_t l_t over the decided tokens (float64 accumulation of float32 terms); the
  ;; indices (from 0) of the near tokens, which the caller decides again (their g and loss term
  ;; are left to it), go to the near list at $list (i32, up to 4n bytes), their count to $nearN.
  ;; Each w_t is multiplied by $wScale. $opt: 1 cap on, 2 truncate, 4 cap only where A < 0.
  ;; Besides the tv threshold, a token is near when |lp - lq| > 20 - 2^-16 (at or beyond the
  ;; clamp: every decided token is inside it, so rho = p / q), when lp or lq < -87 (p or q not
  ;; a normal float32), or, capped, when |rho - cap| <= 2^-16 cap.
  (func (export "tv_loss_f32")
    (param $lp i32) (param $lq i32) (param $a i32) (param $w i32) (param $g i32) (param $n i32) (param $list i32)
    (param $lo f32) (param $hi f32) (param $win f32) (param $cap f32) (param $opt i32) (param $wScale f64) (result f64)
    (local $i i32) (local $nl i32) (local $capOn i32)
    (local $xmin v128) (local $xmax v128) (local $log2e v128) (local $shift v128) (local $c1 v128) (local $c2 v128) (local $p0 v128) (local $p1 v128) (local $p2 v128) (local $p3 v128) (local $p4 v128) (local $p5 v128) (local $one v128) (local $bias v128)
    (local $xc0 v128) (local $t0 v128) (local $k0 v128) (local $r0 v128) (local $xc1 v128) (local $t1 v128) (local $k1 v128) (local $r1 v128)
    (local $hi4 v128) (local $nlo4 v128) (local $win4 v128) (local $cap4 v128) (local $capWin v128) (local $scopeAll v128) (local $trunc v128)
    (local $ws4 v128) (local $sign v128) (local $zero v128) (local $lrIn v128) (local $lpMin v128) (local $ones v128)
    (local $lpv v128) (local $lqv v128) (local $av v128) (local $wv v128) (local $pv v128) (local $qv v128)
    (local $skip v128) (local $pos v128) (local $d v128) (local $drop v128) (local $near v128)
    (local $rho v128) (local $capm v128) (local $over v128) (local $gm v128) (local $wn v128) (local $keep v128) (local $t v128)
    (local $acc v128)
    (local.set $xmin (global.get $G_xmin))
    (local.set $xmax (global.get $G_xmax))
    (local.set $log2e (global.get $G_log2e))
    (local.set $shift (global.get $G_shift))
    (local.set $c1 (global.get $G_c1))
    (local.set $c2 (global.get $G_c2))
    (local.set $p0 (global.get $G_p0))
    (local.set $p1 (global.get $G_p1))
    (local.set $p2 (global.get $G_p2))
    (local.set $p3 (global.get $G_p3))
    (local.set $p4 (global.get $G_p4))
    (local.set $p5 (global.get $G_p5))
    (local.set $one (global.get $G_one))
    (local.set $bias (global.get $G_bias))
    (local.set $nl (local.get $list))
    (local.set $hi4 (f32x4.splat (local.get $hi)))
    (local.set $nlo4 (f32x4.neg (f32x4.splat (local.get $lo))))
    (local.set $win4 (f32x4.splat (local.get $win)))
    (local.set $cap4 (f32x4.splat (local.get $cap)))
    (local.set $capWin (f32x4.splat (f32.mul (local.get $cap) (f32.const 0x1p-16))))
    (local.set $capOn (i32.and (local.get $opt) (i32.const 1)))
    (local.set $trunc (i32x4.splat (i32.sub (i32.const 0) (i32.shr_u (i32.and (local.get $opt) (i32.const 2)) (i32.const 1)))))
    (local.set $scopeAll (i32x4.splat (i32.sub (i32.shr_u (i32.and (local.get $opt) (i32.const 4)) (i32.const 2)) (i32.const 1))))
    (local.set $ws4 (f32x4.splat (f32.demote_f64 (local.get $wScale))))
    (local.set $sign (global.get $K_sign))
    (local.set $lrIn (global.get $K_lrIn))
    (local.set $lpMin (global.get $K_lpMin))
    (local.set $ones (global.get $K_ones))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $lpv (v128.load (local.get $lp)))
        (local.set $lqv (v128.load (local.get $lq)))
        (local.set $av (v128.load (local.get $a)))
        (local.set $wv (v128.load (local.get $w)))
        ;; $pv = fexp4($lpv) (the same operations as $expChunk)
        (local.set $xc0 (f32x4.pmin (f32x4.pmax (local.get $lpv) (local.get $xmin)) (local.get $xmax)))
        (local.set $t0 (f32x4.add (f32x4.mul (local.get $xc0) (local.get $log2e)) (local.get $shift)))
        (local.set $k0 (f32x4.sub (local.get $t0) (local.get $shift)))
        (local.set $r0 (f32x4.sub (f32x4.sub (local.get $xc0) (f32x4.mul (local.get $k0) (local.get $c1))) (f32x4.mul (local.get $k0) (local.get $c2))))
        (local.set $pv
          (f32x4.add (local.get $one)
            (f32x4.add (local.get $r0)
              (f32x4.mul (f32x4.mul (local.get $r0) (local.get $r0))
                (f32x4.add (local.get $p5)
                  (f32x4.mul (local.get $r0)
                    (f32x4.add (local.get $p4)
                      (f32x4.mul (local.get $r0)
                        (f32x4.add (local.get $p3)
                          (f32x4.mul (local.get $r0)
                            (f32x4.add (local.get $p2)
                              (f32x4.mul (local.get $r0)
                                (f32x4.add (local.get $p1) (f32x4.mul (local.get $r0) (local.get $p0)))))))))))))))
        (local.set $pv (f32x4.mul (local.get $pv) (i32x4.shl (i32x4.add (local.get $t0) (local.get $bias)) (i32.const 23))))
        (local.set $pv (v128.andnot (local.get $pv) (f32x4.lt (local.get $lpv) (local.get $xmin))))
        ;; $qv = fexp4($lqv) (the same operations as $expChunk)
        (local.set $xc1 (f32x4.pmin (f32x4.pmax (local.get $lqv) (local.get $xmin)) (local.get $xmax)))
        (local.set $t1 (f32x4.add (f32x4.mul (local.get $xc1) (local.get $log2e)) (local.get $shift)))
        (local.set $k1 (f32x4.sub (local.get $t1) (local.get $shift)))
        (local.set $r1 (f32x4.sub (f32x4.sub (local.get $xc1) (f32x4.mul (local.get $k1) (local.get $c1))) (f32x4.mul (local.get $k1) (local.get $c2))))
        (local.set $qv
          (f32x4.add (local.get $one)
            (f32x4.add (local.get $r1)
              (f32x4.mul (f32x4.mul (local.get $r1) (local.get $r1))
                (f32x4.add (local.get $p5)
                  (f32x4.mul (local.get $r1)
                    (f32x4.add (local.get $p4)
                      (f32x4.mul (local.get $r1)
                        (f32x4.add (local.get $p3)
                          (f32x4.mul (local.get $r1)
                            (f32x4.add (local.get $p2)
                              (f32x4.mul (local.get $r1)
                                (f32x4.add (local.get $p1) (f32x4.mul (local.get $r1) (local.get $p0)))))))))))))))
        (local.set $qv (f32x4.mul (local.get $qv) (i32x4.shl (i32x4.add (local.get $t1) (local.get $bias)) (i32.const 23))))
        (local.set $qv (v128.andnot (local.get $qv) (f32x4.lt (local.get $lqv) (local.get $xmin))))
        (local.set $skip (f32x4.eq (local.get $wv) (local.get $zero)))
        (local.set $pos (f32x4.gt (local.get $av) (local.get $zero)))
        (local.set $d
          (f32x4.sub (f32x4.sub (local.get $pv) (local.get $qv)) (v128.bitselect (local.get $hi4) (local.get $nlo4) (local.get $pos))))
        (local.set $drop (f32x4.gt (v128.xor (local.get $d) (v128.andnot (local.get $sign) (local.get $pos))) (local.get $zero)))
        ;; near: the threshold, the clamp (|lr| > 20 - 2^-16), p or q not normal (lp or lq < -87)
        (local.set $near
          (v128.or
            (f32x4.le (f32x4.abs (local.get $d)) (local.get $win4))
            (v128.or
              (f32x4.gt (f32x4.abs (f32x4.sub (local.get $lpv) (local.get $lqv))) (local.get $lrIn))
              (f32x4.lt (f32x4.pmin (local.get $lpv) (local.get $lqv)) (local.get $lpMin)))))
        (local.set $rho (f32x4.div (local.get $pv) (local.get $qv)))
        ;; the cap: r = min(rho, cap) where capped; clip gives no gradient above it
        (local.set $gm (local.get $ones))
        (if (local.get $capOn)
          (then
            (local.set $capm (v128.or (local.get $scopeAll) (f32x4.lt (local.get $av) (local.get $zero))))
            (local.set $over (v128.and (local.get $capm) (f32x4.gt (local.get $rho) (local.get $cap4))))
            (local.set $near
              (v128.or (local.get $near)
                (v128.and (local.get $capm) (f32x4.le (f32x4.abs (f32x4.sub (local.get $rho) (local.get $cap4))) (local.get $capWin)))))
            (local.set $rho (v128.bitselect (local.get $cap4) (local.get $rho) (local.get $over)))
            (local.set $gm (v128.or (local.get $trunc) (v128.not (local.get $over))))))
        (local.set $near (v128.andnot (local.get $near) (local.get $skip)))
        (local.set $keep (v128.not (v128.or (v128.or (local.get $drop) (local.get $skip)) (local.get $near))))
        ;; wn = w * (-A r); clip: l = -A r, g = wn; truncate: l = -A r lp, g = wn
        (local.set $wn (f32x4.mul (local.get $wv) (f32x4.mul (v128.xor (local.get $av) (local.get $sign)) (local.get $rho))))
        (v128.store (local.get $g)
          (v128.and (f32x4.mul (local.get $wn) (local.get $ws4)) (v128.and (local.get $keep) (local.get $gm))))
        (local.set $t (v128.and (v128.bitselect (f32x4.mul (local.get $wn) (local.get $lpv)) (local.get $wn) (local.get $trunc)) (local.get $keep)))
        ;; loss += w l over kept tokens, in float64
        (local.set $acc
          (f64x2.add (local.get $acc)
            (f64x2.add
              (f64x2.promote_low_f32x4 (local.get $t))
              (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $t) (local.get $t))))))
        ;; near tokens: their indices (from the chunk start) go to the near list
        (if (v128.any_true (local.get $near))
          (then
            (if (i32x4.extract_lane 0 (local.get $near)) (then (i32.store (local.get $nl) (local.get $i)) (local.set $nl (i32.add (local.get $nl) (i32.const 4)))))
            (if (i32x4.extract_lane 1 (local.get $near)) (then (i32.store (local.get $nl) (i32.add (local.get $i) (i32.const 1))) (local.set $nl (i32.add (local.get $nl) (i32.const 4)))))
            (if (i32x4.extract_lane 2 (local.get $near)) (then (i32.store (local.get $nl) (i32.add (local.get $i) (i32.const 2))) (local.set $nl (i32.add (local.get $nl) (i32.const 4)))))
            (if (i32x4.extract_lane 3 (local.get $near)) (then (i32.store (local.get $nl) (i32.add (local.get $i) (i32.const 3))) (local.set $nl (i32.add (local.get $nl) (i32.const 4)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (local.set $lp (i32.add (local.get $lp) (i32.const 16)))
        (local.set $lq (i32.add (local.get $lq) (i32.const 16)))
        (local.set $a (i32.add (local.get $a) (i32.const 16)))
        (local.set $w (i32.add (local.get $w) (i32.const 16)))
        (local.set $g (i32.add (local.get $g) (i32.const 16)))
        (br $next)))
    (global.set $nearN (i32.shr_u (i32.sub (local.get $nl) (local.get $list)) (i32.const 2)))
    (f64.mul
      (f64.add (f64x2.extract_lane 0 (local.get $acc)) (f64x2.extract_lane 1 (local.get $acc)))
      (local.get $wScale)))
)
