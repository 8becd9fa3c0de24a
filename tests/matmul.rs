//! Matrix products (rules G1-G6) against an index-by-index reference on random shapes: batch
//! ranks 0-3, dims 0-5, rank-1 operands, zero-size dims, transposes and strided views; static,
//! mixed and runtime tensors agree; each rule has a test named after it.

use crate::common;

use common::Lcg;
use shaped::rules::MatMulOptions;
use shaped::{DynTensor, ErrorKind, Shape, Tensor, TensorView};

/// Random cases: fewer under Miri, which interprets every step.
const CASES: usize = if cfg!(miri) { 30 } else { 400 };

fn tensor(rng: &mut Lcg, shape: &[usize]) -> DynTensor<i64> {
    let n: usize = shape.iter().product();
    DynTensor::from_shape_vec(shape, (0..n).map(|_| rng.below(19) as i64 - 9).collect()).unwrap()
}

/// numpy's `matmul`, by the textbook: promote rank-1 operands, broadcast the batch dims,
/// sum over `k` for each output element, then drop the promoted dims.
fn reference(a: &DynTensor<i64>, b: &DynTensor<i64>) -> Option<(Vec<usize>, Vec<i64>)> {
    let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
    if sa.is_empty() || sb.is_empty() {
        return None;
    }
    let pa = if sa.len() == 1 {
        vec![1, sa[0]]
    } else {
        sa.clone()
    };
    let pb = if sb.len() == 1 {
        vec![sb[0], 1]
    } else {
        sb.clone()
    };
    let (m, k) = (pa[pa.len() - 2], pa[pa.len() - 1]);
    let (kb, n) = (pb[pb.len() - 2], pb[pb.len() - 1]);
    if k != kb {
        return None;
    }
    let batch = common::numpy_shape(&pa[..pa.len() - 2], &pb[..pb.len() - 2])?;
    let mut full = batch.clone();
    full.extend([m, n]);
    let mut out = Vec::new();
    // Both operands' multi-indices in buffers of their own, reused (Miri runs this too).
    let (mut ia, mut ib) = (full.clone(), full.clone());
    let last = full.len() - 1;
    common::for_each_index(&full, |idx| {
        let (i, j) = (idx[last - 1], idx[last]);
        ia.copy_from_slice(idx);
        ib.copy_from_slice(idx);
        let mut acc = 0i64;
        for kk in 0..k {
            (ia[last - 1], ia[last]) = (i, kk);
            (ib[last - 1], ib[last]) = (kk, j);
            let x = common::read_broadcast(a.as_slice(), &pa, &ia);
            let y = common::read_broadcast(b.as_slice(), &pb, &ib);
            acc = acc.wrapping_add(x.wrapping_mul(y));
        }
        out.push(acc);
    });
    let mut shape = batch;
    if sa.len() > 1 {
        shape.push(m);
    }
    if sb.len() > 1 {
        shape.push(n);
    }
    Some((shape, out))
}

/// A `DynTensor` product of random operands of shapes `sa` and `sb` equals the reference's.
fn assert_product_matches_the_reference(rng: &mut Lcg, sa: &[usize], sb: &[usize]) {
    let (a, b) = (tensor(rng, sa), tensor(rng, sb));
    let (shape, expected) = reference(&a, &b).unwrap();
    let got = a.matmul(&b).unwrap();
    assert_eq!(
        (got.shape(), got.as_slice()),
        (&shape[..], &expected[..]),
        "{sa:?} x {sb:?}"
    );
}

#[test]
fn g4_g5_runtime_products_match_the_reference_on_random_shapes() {
    let mut rng = Lcg(31);
    let mut checked = 0;
    for _ in 0..CASES {
        let (m, k, n) = (rng.below(6), rng.below(6), rng.below(6));
        let shape = |rng: &mut Lcg, rows: usize, cols: usize, vector: usize| -> Vec<usize> {
            if rng.below(5) == 0 {
                return vec![vector];
            }
            let mut s: Vec<usize> = (0..rng.below(4))
                .map(|_| [1, 1, 2, 3, 0][rng.below(5)])
                .collect();
            s.extend([rows, cols]);
            s
        };
        let sa = shape(&mut rng, m, k, k);
        let mut sb = shape(&mut rng, k, n, k);
        // Now and then a mismatch, to see the error.
        if rng.below(8) == 0 {
            let l = sb.len();
            sb[l.saturating_sub(2)] += 1;
        }
        let (a, b) = (tensor(&mut rng, &sa), tensor(&mut rng, &sb));
        match (a.matmul(&b), reference(&a, &b)) {
            (Ok(c), Some((shape, data))) => {
                assert_eq!(
                    (c.shape(), c.as_slice()),
                    (&shape[..], &data[..]),
                    "{sa:?} x {sb:?}"
                );
                checked += 1;
            }
            (Err(e), None) => assert!(
                matches!(
                    e.kind(),
                    ErrorKind::InnerDims { .. } | ErrorKind::BatchDims { .. }
                ),
                "{sa:?} x {sb:?}: {e}"
            ),
            (got, want) => panic!("{sa:?} x {sb:?}: {got:?} vs {want:?}"),
        }
    }
    assert!(checked > CASES / 2, "only {checked} products");
}

#[test]
fn g1_rank_zero_is_an_error() {
    let s = DynTensor::scalar(2i64);
    let v = DynTensor::from_shape_vec([3], vec![1i64, 2, 3]).unwrap();
    let e = s.matmul(&v).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RankZero);
    assert_eq!(
        e.to_string(),
        "cannot multiply [] by [3] (matmul): an operand has rank 0 (G1)"
    );
}

#[test]
fn g2_transposes_read_the_operand_in_place() {
    let mut rng = Lcg(5);
    for (ta, tb) in [(false, true), (true, false), (true, true)] {
        let (m, k, n) = (3, 4, 5);
        let a = tensor(&mut rng, &if ta { [2, k, m] } else { [2, m, k] });
        let b = tensor(&mut rng, &if tb { [n, k] } else { [k, n] });
        let options = MatMulOptions {
            transpose_a: ta,
            transpose_b: tb,
        };
        let got = a.matmul_with(&b, options).unwrap();
        let a2 = if ta {
            a.permute([0, 2, 1]).unwrap()
        } else {
            a.clone()
        };
        let b2 = if tb { b.transpose() } else { b.clone() };
        assert_eq!(got, a2.matmul(&b2).unwrap(), "{ta} {tb}");
        // The same through strided views: no copy, same values.
        let av = a
            .strided()
            .permute(if ta { [0, 2, 1] } else { [0, 1, 2] })
            .unwrap();
        let bv = if tb {
            b.strided().transpose()
        } else {
            b.strided()
        };
        assert_eq!(av.matmul_with(&bv, MatMulOptions::default()).unwrap(), got);
    }
    // On a rank-1 operand a transpose does nothing.
    let v = DynTensor::from_shape_vec([3], vec![1i64, 2, 3]).unwrap();
    let t = MatMulOptions {
        transpose_a: true,
        transpose_b: true,
    };
    assert_eq!(v.matmul_with(&v, t).unwrap().as_slice(), &[14]);
}

#[test]
fn g3_rank_one_operands_are_a_row_and_a_column() {
    let v = DynTensor::from_shape_vec([3], vec![1i64, 2, 3]).unwrap();
    let m = DynTensor::from_shape_vec([3, 2], vec![1i64, 0, 0, 1, 1, 1]).unwrap();
    let r = v.matmul(&m).unwrap();
    assert_eq!((r.shape(), r.as_slice()), (&[2][..], &[4, 5][..]));
    let mt = m.transpose();
    let c = mt.matmul(&v).unwrap();
    assert_eq!((c.shape(), c.as_slice()), (&[2][..], &[4, 5][..]));
    let dot = v.matmul(&v).unwrap();
    assert_eq!((dot.shape(), dot.as_slice()), (&[][..], &[14][..]));
}

#[test]
fn g4_inner_dims_must_be_equal_and_1_does_not_stretch() {
    let a = DynTensor::from_elem([4, 8], 1.0f32).unwrap();
    let e = a.matmul(&a).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InnerDims { lhs: 8, rhs: 4 });
    assert_eq!(
        e.to_string(),
        "cannot multiply [4, 8] by [4, 8] (matmul): inner dims 8 vs 4 (G4)"
    );
    let one = DynTensor::from_elem([1, 3], 1.0f32).unwrap();
    assert!(a.matmul(&one).is_err());
}

#[test]
fn g5_batch_dims_broadcast_by_numpy() {
    let q = DynTensor::from_elem([2, 1, 5, 3], 1i64).unwrap();
    let k = DynTensor::from_elem([4, 3, 7], 2i64).unwrap();
    let s = q.matmul(&k).unwrap();
    assert_eq!(s.shape(), [2, 4, 5, 7]);
    assert!(s.iter().all(|&x| x == 6));
    let e = DynTensor::from_elem([2, 5, 3], 1i64)
        .unwrap()
        .matmul(&DynTensor::from_elem([4, 3, 7], 1i64).unwrap())
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::BatchDims {
            axis: 0,
            lhs: 2,
            rhs: 4
        }
    );
    assert_eq!(
        e.to_string(),
        "cannot multiply [2, 5, 3] by [4, 3, 7] (matmul): batch axis 0 has 2 vs 4 (G5)"
    );
}

#[test]
fn g6_integers_wrap_and_floats_agree_across_kernels() {
    let a = DynTensor::from_shape_vec([1, 2], vec![i32::MAX, 2]).unwrap();
    let b = DynTensor::from_shape_vec([2, 1], vec![2, 1]).unwrap();
    assert_eq!(
        a.matmul(&b).unwrap().as_slice(),
        &[i32::MAX.wrapping_mul(2).wrapping_add(2)]
    );
    // Large enough for the blocked gemm (f32 and f64), small enough for exact integer sums.
    // Under Miri one product at the gemm's threshold, which is lower there: it interprets
    // every step.
    let cases: &[(usize, usize, usize)] = if cfg!(miri) {
        &[(16, 32, 16)]
    } else {
        &[(40, 33, 35), (64, 64, 64)]
    };
    for &(m, k, n) in cases {
        let mut rng = Lcg(m as u64);
        let (ai, bi) = (tensor(&mut rng, &[m, k]), tensor(&mut rng, &[k, n]));
        let exact = ai.matmul(&bi).unwrap();
        let f32s = ai
            .map(|&x| x as f32)
            .matmul(&bi.map(|&x| x as f32))
            .unwrap();
        let f64s = ai
            .map(|&x| x as f64)
            .matmul(&bi.map(|&x| x as f64))
            .unwrap();
        assert_eq!(f32s.as_slice(), exact.map(|&x| x as f32).as_slice());
        assert_eq!(f64s.as_slice(), exact.map(|&x| x as f64).as_slice());
        // Transposed operands through the gemm's strides.
        let t = MatMulOptions {
            transpose_a: true,
            transpose_b: true,
        };
        let ft = ai
            .map(|&x| x as f32)
            .transpose()
            .matmul_with(&bi.map(|&x| x as f32).transpose(), t);
        assert_eq!(ft.unwrap(), f32s);
    }
}

/// G6: a sum starts from its first term, so terms that are all `-0.0` sum to `-0.0` (from a
/// zero it would be `+0.0`); an empty sum is `+0.0`. Static, mixed and runtime alike, on the
/// small path and on the shared kernel.
#[test]
fn g6_sum_starts_from_the_first_term() {
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let (neg, pos) = ((-0.0f32).to_bits(), 0.0f32.to_bits());
    // [2, 3] x [3, 2]: every term of element [0, 0] is -0.0; element [0, 1] mixes signs.
    let a = [-0.0, 0.0, -0.0, 1.0, 2.0, 3.0];
    let b = [1.0, 0.0, -1.0, 0.0, 1.0, 0.0];
    let expected = [
        neg, // -0*1 + 0*-1 + -0*1 = -0 + -0 + -0
        pos, // -0*0 + 0*0 + -0*0 = -0 + 0 + -0
        (1.0f32 - 2.0 + 3.0).to_bits(),
        pos,
    ];
    let ta = Tensor::<f32, Shape![2, 3]>::try_from(&a[..]).unwrap();
    let tb = Tensor::<f32, Shape![3, 2]>::try_from(&b[..]).unwrap();
    let s: Tensor<f32, Shape![2, 2]> = ta.matmul(&tb);
    assert_eq!(bits(s.as_slice()), expected);
    let ma = Tensor::<f32, Shape![_, 3]>::from_shape_vec([2, 3], a.to_vec()).unwrap();
    let m: Tensor<f32, Shape![_, 2]> = ma.matmul(&tb);
    assert_eq!(bits(m.as_slice()), expected);
    let (da, db) = (
        DynTensor::from_shape_vec([2, 3], a.to_vec()).unwrap(),
        DynTensor::from_shape_vec([3, 2], b.to_vec()).unwrap(),
    );
    assert_eq!(bits(da.matmul(&db).unwrap().as_slice()), expected);
    // A static product above the small path's size takes the shared loop nest (the runtime
    // path above does too, at any size below the gemm's).
    let tall: Vec<f32> = a.iter().copied().cycle().take(700 * 3).collect();
    let tall = Tensor::<f32, Shape![700, 3]>::try_from(&tall[..]).unwrap();
    let out: Tensor<f32, Shape![700, 2]> = tall.matmul(&tb);
    assert_eq!(bits(&out.as_slice()[..4]), expected);
    assert_eq!(bits(&out.as_slice()[1396..]), expected);
    // Empty sums: +0.0, on every path.
    let e =
        Tensor::<f32, Shape![2, 0]>::splat(1.0).matmul(&Tensor::<f32, Shape![0, 2]>::splat(1.0));
    assert_eq!(bits(e.as_slice()), [pos; 4]);
    let de = DynTensor::<f32>::from_shape_vec([2, 0], vec![]).unwrap();
    let de = de.matmul(&DynTensor::from_shape_vec([0, 2], vec![]).unwrap());
    assert_eq!(bits(de.unwrap().as_slice()), [pos; 4]);
}

/// The same products through static shapes, mixed shapes and `DynTensor`. (Not under Miri:
/// integer products reach no `unsafe` code, and these are large for an interpreter.)
#[test]
#[cfg_attr(miri, ignore)]
fn static_mixed_and_runtime_agree() {
    let mut rng = Lcg(77);
    macro_rules! agree {
        ($sa:ty, $sb:ty, $out:ty, $da:expr, $db:expr) => {{
            let (a, b) = (tensor(&mut rng, &$da), tensor(&mut rng, &$db));
            // Views: the largest operand (16x24x32 i64, 96 KiB) is past the inline limit.
            let ta = TensorView::<i64, $sa>::new(a.as_slice()).unwrap();
            let tb = TensorView::<i64, $sb>::new(b.as_slice()).unwrap();
            let s: Tensor<i64, $out> = ta.matmul(&tb);
            let d = a.matmul(&b).unwrap();
            assert_eq!(s.to_dyn(), d);
            let (expected_shape, expected) = reference(&a, &b).unwrap();
            assert_eq!(
                (d.shape(), d.as_slice()),
                (&expected_shape[..], &expected[..])
            );
            // Heap storage takes the shared kernel for the larger cases: the same values.
            assert_eq!(ta.to_heap().matmul(&tb).to_dyn(), d);
        }};
    }
    agree!(Shape![4, 4], Shape![4, 4], Shape![4, 4], [4, 4], [4, 4]);
    agree!(Shape![3, 3], Shape![3, 1], Shape![3, 1], [3, 3], [3, 1]);
    agree!(Shape![2, 8], Shape![8, 4], Shape![2, 4], [2, 8], [8, 4]);
    agree!(
        Shape![2, 1, 5, 3],
        Shape![4, 3, 7],
        Shape![2, 4, 5, 7],
        [2, 1, 5, 3],
        [4, 3, 7]
    );
    agree!(Shape![3], Shape![3, 2], Shape![2], [3], [3, 2]);
    agree!(Shape![2, 3], Shape![3], Shape![2], [2, 3], [3]);
    agree!(Shape![3], Shape![3], Shape![], [3], [3]);
    agree!(Shape![0, 3], Shape![3, 2], Shape![0, 2], [0, 3], [3, 2]);
    agree!(Shape![2, 0], Shape![0, 2], Shape![2, 2], [2, 0], [0, 2]);
    agree!(
        Shape![16, 24, 32],
        Shape![32, 8],
        Shape![16, 24, 8],
        [16, 24, 32],
        [32, 8]
    );
    // Mixed: the `Dyn` dims stay `Dyn`, checked at run time.
    let a = tensor(&mut rng, &[5, 3, 4]);
    let b = tensor(&mut rng, &[4, 2]);
    let ma =
        Tensor::<i64, Shape![_, 3, 4]>::from_shape_vec([5, 3, 4], a.as_slice().to_vec()).unwrap();
    let mb = Tensor::<i64, Shape![_, 2]>::from_shape_vec([4, 2], b.as_slice().to_vec()).unwrap();
    let c: Tensor<i64, Shape![_, 3, 2]> = ma.matmul(&mb);
    assert_eq!(c.to_dyn(), a.matmul(&b).unwrap());
    let big_a = tensor(&mut rng, &[9, 20, 30]);
    let mba =
        Tensor::<i64, Shape![_, 20, _]>::from_shape_vec([9, 20, 30], big_a.as_slice().to_vec())
            .unwrap();
    let w = tensor(&mut rng, &[30, 11]);
    let tw = Tensor::<i64, Shape![30, 11]>::try_from(w.as_slice()).unwrap();
    let big: Tensor<i64, Shape![_, 20, 11]> = mba.matmul(&tw);
    assert_eq!(big.to_dyn(), big_a.matmul(&w).unwrap());
}

/// Static transposes (G2) read the operand in place and agree with the runtime ones, on the
/// small path and on the shared kernel. (Not under Miri: `g6_...` covers the gemm there.)
#[test]
#[cfg_attr(miri, ignore)]
fn g2_static_transposes_agree_with_runtime_ones() {
    let mut rng = Lcg(91);
    let (a, b) = (tensor(&mut rng, &[2, 4, 3]), tensor(&mut rng, &[5, 4]));
    let ta = Tensor::<i64, Shape![2, 4, 3]>::try_from(a.as_slice()).unwrap();
    let tb = Tensor::<i64, Shape![5, 4]>::try_from(b.as_slice()).unwrap();
    let both = MatMulOptions {
        transpose_a: true,
        transpose_b: true,
    };
    let s: Tensor<i64, Shape![2, 3, 5]> = ta.matmul_t::<true, true, _, _>(&tb);
    assert_eq!(s.to_dyn(), a.matmul_with(&b, both).unwrap());
    let v = tensor(&mut rng, &[4]);
    let tv = Tensor::<i64, Shape![4]>::try_from(v.as_slice()).unwrap();
    let row: Tensor<i64, Shape![5]> = tv.matmul_t::<true, true, _, _>(&tb);
    assert_eq!(row.to_dyn(), v.matmul_with(&b, both).unwrap());
    let (x, w) = (tensor(&mut rng, &[8, 40, 30]), tensor(&mut rng, &[20, 40]));
    let tx = TensorView::<i64, Shape![8, 40, 30]>::new(x.as_slice())
        .unwrap()
        .to_heap();
    let tw = Tensor::<i64, Shape![20, 40]>::try_from(w.as_slice()).unwrap();
    let y: shaped::HeapTensor<i64, Shape![8, 30, 20]> = tx.matmul_t::<true, true, _, _>(&tw);
    assert_eq!(y.to_dyn(), x.matmul_with(&w, both).unwrap());
    let f = |t: &DynTensor<i64>| t.map(|&v| v as f32);
    let yf = tx
        .map(|&v| v as f32)
        .matmul_t::<true, true, _, _>(&tw.map(|&v| v as f32));
    assert_eq!(yf.to_dyn(), f(&x).matmul_with(&f(&w), both).unwrap());
}

#[test]
#[should_panic(expected = "cannot multiply [2, 3] by [4, 2] (matmul): inner dims 3 vs 4 (G4)")]
fn mixed_inner_mismatch_panics_with_the_error() {
    let a = Tensor::<f32, Shape![2, _]>::from_shape_vec([2, 3], vec![0.0; 6]).unwrap();
    let b = Tensor::<f32, Shape![_, 2]>::from_shape_vec([4, 2], vec![0.0; 8]).unwrap();
    let _ = a.matmul(&b);
}

/// Rows of exactly four or sixteen columns take their own fixed-size loops in the runtime
/// kernel, and a right operand read across a stride is gathered in blocks of columns first
/// (sixteen at a time, or fewer when `k` is large): the same values as the reference, batched
/// and broadcast, with a strided left operand, and with an empty inner dim (every element
/// +0.0).
#[test]
fn g6_rows_of_four_and_sixteen_and_gathered_columns_agree_with_the_reference() {
    let mut rng = Lcg(404);
    for (sa, sb) in [
        (&[4usize, 4][..], &[4usize, 4][..]),
        (&[3, 5], &[5, 4]),
        (&[2, 1, 3, 7], &[5, 7, 4]),
        (&[6], &[6, 4]),
        (&[5, 9], &[9, 16]),
        (&[2, 4, 3, 16], &[2, 4, 16, 16]),
    ] {
        assert_product_matches_the_reference(&mut rng, sa, sb);
    }
    // The left operand read transposed, in place.
    let (a, b) = (tensor(&mut rng, &[5, 3]), tensor(&mut rng, &[5, 4]));
    let t = MatMulOptions {
        transpose_a: true,
        transpose_b: false,
    };
    let (shape, expected) = reference(&a.transpose(), &b).unwrap();
    let got = a.matmul_with(&b, t).unwrap();
    assert_eq!((got.shape(), got.as_slice()), (&shape[..], &expected[..]));
    // The right operand transposed (as `q kᵀ` in attention): 16 columns in one gathered
    // block, 20 columns with k = 40 in blocks of 12 and 8.
    let both = MatMulOptions {
        transpose_a: false,
        transpose_b: true,
    };
    for ([m, k, n], batch) in [([5, 8, 16], 3), ([3, 40, 20], 1), ([2, 16, 7], 2)] {
        let (a, b) = (
            tensor(&mut rng, &[batch, m, k]),
            tensor(&mut rng, &[batch, n, k]),
        );
        let bt = b.permute([0, 2, 1]).unwrap();
        let (shape, expected) = reference(&a, &bt).unwrap();
        let got = a.matmul_with(&b, both).unwrap();
        assert_eq!(
            (got.shape(), got.as_slice()),
            (&shape[..], &expected[..]),
            "[{batch}, {m}, {k}] x [{batch}, {n}, {k}]ᵀ"
        );
    }
    let empty = DynTensor::<f32>::from_shape_vec([3, 0], vec![]).unwrap();
    let rhs = DynTensor::<f32>::from_shape_vec([0, 4], vec![]).unwrap();
    let zeros = empty.matmul(&rhs).unwrap();
    assert_eq!(zeros.shape(), [3, 4]);
    assert!(zeros.as_slice().iter().all(|x| x.to_bits() == 0));
}

/// Columns summed in blocks of 32 (`n` of 70 and 40: blocks of 32, then the rest), gathered
/// blocks narrower than 16 (a transposed right operand with `k` = 20: blocks of 25 and 8),
/// and products large enough for the kernel's AVX2 copy where the CPU has it: the same values
/// as the reference, as the baseline loops give.
#[test]
fn g6_blocks_of_columns_and_the_wide_copy_agree_with_the_reference() {
    let mut rng = Lcg(505);
    for (sa, sb) in [
        (&[3usize, 5][..], &[5usize, 70][..]),
        (&[4, 5], &[5, 40]),
        (&[1, 2, 9], &[3, 9, 33]),
        (&[7], &[7, 35]),
    ] {
        assert_product_matches_the_reference(&mut rng, sa, sb);
    }
    let both = MatMulOptions {
        transpose_a: false,
        transpose_b: true,
    };
    let (a, b) = (
        tensor(&mut rng, &[1, 3, 20]),
        tensor(&mut rng, &[1, 33, 20]),
    );
    let (shape, expected) = reference(&a, &b.permute([0, 2, 1]).unwrap()).unwrap();
    let got = a.matmul_with(&b, both).unwrap();
    assert_eq!((got.shape(), got.as_slice()), (&shape[..], &expected[..]));
    // Static results of the runtime kernel (4096 multiply-adds and more), on the stack and
    // on the heap, written where they live: the runtime path's values (checked against the
    // reference above).
    let (a, b) = (tensor(&mut rng, &[64, 8]), tensor(&mut rng, &[8, 9]));
    let expected = a.matmul(&b).unwrap().as_slice().to_vec();
    let sa = Tensor::<i64, Shape![64, 8]>::try_from(a.as_slice()).unwrap();
    let sb = Tensor::<i64, Shape![8, 9]>::try_from(b.as_slice()).unwrap();
    assert_eq!(sa.matmul(&sb).as_slice(), &expected[..]);
    let ha = shaped::HeapTensor::<i64, Shape![64, 8]>::from_fn(|[i, j]| sa[[i, j]]);
    assert_eq!(ha.matmul(&sb).as_slice(), &expected[..]);
}

/// G2: the named transposed products agree with `matmul_t` and with products of transposed
/// copies, at rank 2 and with batch dims.
#[test]
fn g2_named_transposed_products_need_no_placeholders() {
    let a = Tensor::<i64, Shape![2, 3, 4]>::from_fn(|[b, i, j]| (b * 12 + i * 4 + j) as i64 - 7);
    let b = Tensor::<i64, Shape![2, 5, 4]>::from_fn(|[b, i, j]| (b * 20 + i * 4 + j) as i64 % 9);
    let nt: Tensor<i64, Shape![2, 3, 5]> = a.matmul_nt(&b);
    assert_eq!(nt, a.matmul(&b.transpose()));
    assert_eq!(nt, a.matmul_t::<false, true, _, _>(&b));
    let tn: Tensor<i64, Shape![2, 4, 4]> = a.matmul_tn(&a);
    assert_eq!(tn, a.transpose().matmul(&a));
    let c = Tensor::<i64, Shape![2, 5, 3]>::from_fn(|[b, i, j]| (b + i * 3 + j) as i64 - 4);
    let tt: Tensor<i64, Shape![2, 4, 5]> = a.matmul_tt(&c);
    assert_eq!(tt, a.transpose().matmul(&c.transpose()));
    // Mixed shapes take the same methods.
    let m =
        Tensor::<i64, Shape![_, 4]>::from_shape_vec([3, 4], a.as_slice()[..12].to_vec()).unwrap();
    let w = Tensor::<i64, Shape![5, 4]>::from_fn(|[o, i]| (o * 4 + i) as i64);
    assert_eq!(
        m.matmul_nt(&w).as_slice(),
        m.matmul(&w.transpose()).as_slice()
    );
}
