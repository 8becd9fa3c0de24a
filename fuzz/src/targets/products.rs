//! `DynTensor::matmul_with` (rules G1-G6) on operands of rank 0-4 with any dims (zero-size
//! ones included), both transposes, the right operand as a tensor or as a strided view read
//! in place (stored transposed), checked against numpy's `matmul` by the textbook: the shape,
//! every element (integers wrap), and the error's kind.
use super::super::{indices, read_offset, reference_shape, small, Input};
use shaped::rules::MatMulOptions;
use shaped::{AutoBroadcast, DynTensor, ErrorKind};

/// An operand of `shape` with small values.
fn operand(input: &mut Input<'_>, shape: &[usize]) -> DynTensor<i64> {
    let n: usize = shape.iter().product();
    let data = (0..n).map(|_| input.byte() as i64 % 19 - 9).collect();
    DynTensor::from_shape_vec(shape, data).unwrap()
}

/// `x` with its last two axes swapped (G2); rank 0 and 1 unchanged.
fn swapped(x: &DynTensor<i64>) -> DynTensor<i64> {
    let r = x.rank();
    if r < 2 {
        return x.clone();
    }
    let mut axes: Vec<i64> = (0..r as i64).collect();
    axes.swap(r - 2, r - 1);
    x.permute(axes).unwrap()
}

/// numpy's `matmul`: promote rank-1 operands, broadcast the batch dims, sum over `k` from the
/// first term, drop the promoted dims; `None` where it refuses.
fn reference(a: &DynTensor<i64>, b: &DynTensor<i64>) -> Option<(Vec<usize>, Vec<i64>)> {
    let (sa, sb) = (a.shape(), b.shape());
    if sa.is_empty() || sb.is_empty() {
        return None;
    }
    let pa = if sa.len() == 1 {
        vec![1, sa[0]]
    } else {
        sa.to_vec()
    };
    let pb = if sb.len() == 1 {
        vec![sb[0], 1]
    } else {
        sb.to_vec()
    };
    let (m, k) = (pa[pa.len() - 2], pa[pa.len() - 1]);
    let (kb, n) = (pb[pb.len() - 2], pb[pb.len() - 1]);
    if k != kb {
        return None;
    }
    // The batch dims broadcast by NUMPY (G5).
    let batch = reference_shape(
        &pa[..pa.len() - 2],
        &pb[..pb.len() - 2],
        AutoBroadcast::Numpy,
    )?
    .out;
    let rank = batch.len();
    let mut full = batch.clone();
    full.extend([m, n]);
    let mut out = Vec::new();
    for idx in indices(&full) {
        let (bi, i, j) = (&idx[..rank], idx[rank], idx[rank + 1]);
        let mut acc = 0i64;
        for kk in 0..k {
            let (mut ia, mut ib) = (bi.to_vec(), bi.to_vec());
            ia.extend([i, kk]);
            ib.extend([kk, j]);
            // Each operand right-aligned against the output's axes, its 1s stretched.
            let x = a.as_slice()[read_offset(&pa, ia.len() - pa.len(), &ia)];
            let y = b.as_slice()[read_offset(&pb, ib.len() - pb.len(), &ib)];
            let term = x.wrapping_mul(y);
            acc = if kk == 0 {
                term
            } else {
                acc.wrapping_add(term)
            };
        }
        out.push(acc);
    }
    let mut shape = batch;
    if sa.len() > 1 {
        shape.push(m);
    }
    if sb.len() > 1 {
        shape.push(n);
    }
    Some((shape, out))
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let (sa, sb) = (input.shape(4, false), input.shape(4, false));
    if !small(&sa, 48) || !small(&sb, 48) {
        return;
    }
    let (a, b) = (operand(&mut input, &sa), operand(&mut input, &sb));
    let options = MatMulOptions {
        transpose_a: input.below(2) == 1,
        transpose_b: input.below(2) == 1,
    };
    let strided = input.below(2) == 1 && b.rank() >= 2;
    let got = if strided {
        // `b` stored transposed, read through a transposed view: the same values, in place.
        let stored = swapped(&b);
        let r = b.rank() as i64;
        let mut axes: Vec<i64> = (0..r).collect();
        axes.swap(r as usize - 2, r as usize - 1);
        let view = stored.strided().permute(axes).unwrap();
        assert_eq!(view.shape(), b.shape());
        a.matmul_with(&view, options)
    } else {
        a.matmul_with(&b, options)
    };
    let ra = if options.transpose_a {
        swapped(&a)
    } else {
        a.clone()
    };
    let rb = if options.transpose_b {
        swapped(&b)
    } else {
        b.clone()
    };
    match (got, reference(&ra, &rb)) {
        (Ok(c), Some((shape, data))) => {
            assert_eq!(c.shape(), &shape[..], "{sa:?} x {sb:?} {options:?}");
            assert_eq!(c.as_slice(), &data[..], "{sa:?} x {sb:?} {options:?}");
        }
        (Err(e), None) => assert!(
            matches!(
                e.kind(),
                ErrorKind::RankZero | ErrorKind::InnerDims { .. } | ErrorKind::BatchDims { .. }
            ),
            "{sa:?} x {sb:?}: {e}"
        ),
        (got, want) => panic!("{sa:?} x {sb:?} {options:?}: {got:?} vs {want:?}"),
    }
}
