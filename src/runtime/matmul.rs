//! The matrix product kernel (rules G1-G6) over inputs with any strides: a transposed, permuted
//! or narrowed operand is read in place. Each batch position is one `m x k` by `k x n`
//! product: a blocked gemm for large `f32`/`f64` products (feature `matrixmultiply`), else a
//! loop nest that adds `k` ascending for each output element, in the element's accumulator
//! type ([`Element::Acc`]: `f32` for `f16` and `bf16`, each result rounded once).

use core::mem::MaybeUninit;

use super::array_ref::{ArrayRef, Strides};
use crate::element::Element;
use crate::error::{Error, ErrorKind};
use crate::rules::{self, MatMulOptions, ShapeBuf};

/// Products with at least this many multiply-adds (`m * k * n`) go to the blocked gemm, when
/// the element type has one; below, its packing costs more than it saves. Under Miri, from
/// 8192: the tests that reach the gemm's `unsafe` call interpret every multiply-add, and one
/// product over 32 * 32 * 32 took Miri minutes. (Not lower: the static product of 4200 in
/// `g6_sum_starts_from_the_first_term` checks the loop nest's signed zeros, which the gemm,
/// summing from `+0.0`, does not keep.)
const GEMM_MIN: usize = if cfg!(miri) { 8192 } else { 32 * 32 * 32 };

/// Multiply-adds counted as one element of work when deciding whether a product is large
/// enough to split ([`super::parallel::tasks`] counts elements of an elementwise add):
/// measured in `benches/parallel.rs`.
const MADDS_PER_ELEMENT: usize = 8;

/// How an operand is read: its strides along the output's batch axes (0 where it is
/// broadcast or absent), then its row and column strides after G2 and G3.
pub(crate) struct Reader<const CAP: usize> {
    pub(crate) batch: ShapeBuf<CAP>,
    pub(crate) row: usize,
    pub(crate) col: usize,
}

pub(crate) fn reader<T, const CAP: usize>(
    x: &ArrayRef<'_, T>,
    transpose: bool,
    left: bool,
    batch_rank: usize,
) -> Reader<CAP> {
    let shape = x.shape;
    let strides: ShapeBuf<CAP> = match x.strides {
        Strides::Given(s) => ShapeBuf::from_slice(s).unwrap_or_default(),
        Strides::RowMajor => {
            let row_major: [usize; CAP] = crate::util::row_major_strides(shape);
            ShapeBuf::from_slice(&row_major[..shape.len()]).unwrap_or_default()
        }
    };
    let r = shape.len();
    let (row, col) = match r {
        // G3: a row [1, k] (its one row never stepped) or a column [k, 1].
        1 if left => (0, strides[0]),
        1 => (strides[0], 0),
        _ if transpose => (strides[r - 1], strides[r - 2]),
        _ => (strides[r - 2], strides[r - 1]),
    };
    let own = r.saturating_sub(2);
    let mut batch: ShapeBuf<CAP> = ShapeBuf::new();
    for axis in 0..batch_rank {
        // Right-aligned (P1); a dim of 1 stretches with stride 0 (P5).
        let stride = (axis + own)
            .checked_sub(batch_rank)
            .filter(|&i| shape[i] != 1)
            .map_or(0, |i| strides[i]);
        batch.push(stride);
    }
    Reader { batch, row, col }
}

/// `a` times `b` (numpy's `matmul`, with OpenVINO's transposes: G1-G6) into `out`, row-major
/// with the shape [`matmul_shape`](crate::rules::matmul_shape) gives. Either input may be
/// strided (a transposed or permuted view is read in place). Integers wrap.
///
/// ```
/// use shaped::runtime::{matmul_into, ArrayRef};
/// use shaped::rules::MatMulOptions;
/// let (a, b) = ([1, 2, 3, 4, 5, 6], [1, 0, 0, 1, 1, 1]);
/// let mut out = [0; 4];
/// // [2, 3] x [3, 2]
/// matmul_into(ArrayRef::new(&[2, 3], &a)?, ArrayRef::new(&[3, 2], &b)?, MatMulOptions::default(), &mut out)?;
/// assert_eq!(out, [4, 5, 10, 11]);
/// # Ok::<(), shaped::Error>(())
/// ```
pub fn matmul_into<T: Element>(
    a: ArrayRef<'_, T>,
    b: ArrayRef<'_, T>,
    options: MatMulOptions,
    out: &mut [T],
) -> Result<(), Error> {
    // SAFETY: `[T]` and `[MaybeUninit<T>]` have the same layout, and the kernel only ever
    // stores initialised values through the slice (it never writes `MaybeUninit::uninit()`),
    // so `out` is still initialised when the borrow ends, whatever happens.
    let slots = unsafe { &mut *(out as *mut [T] as *mut [MaybeUninit<T>]) };
    matmul_into_uninit(a, b, options, slots)
}

/// [`matmul_into`] into memory that need not be initialised: on `Ok`, every element of `out`
/// has been written. Results are written where they will live, never zero-filled first: a
/// static product's zero fill was a `memset` of the whole result and kept LLVM from writing
/// the kernel's output straight into the variable that holds it (an 8 KiB `memcpy` after each
/// product of a transformer block, `benches/transformer_probe.rs`).
pub(crate) fn matmul_into_uninit<T: Element>(
    a: ArrayRef<'_, T>,
    b: ArrayRef<'_, T>,
    options: MatMulOptions,
    out: &mut [MaybeUninit<T>],
) -> Result<(), Error> {
    if a.shape.len() <= SMALL && b.shape.len() <= SMALL {
        let dims = rules::resolve_matmul::<SMALL>(a.shape, b.shape, options)?;
        resolved(&dims, a, b, options, out)
    } else {
        let dims = rules::resolve_matmul::<{ rules::MAX_RANK }>(a.shape, b.shape, options)?;
        resolved(&dims, a, b, options, out)
    }
}

/// The capacity of the shape buffers of products whose operands have at most this rank.
const SMALL: usize = 8;

/// [`matmul_into`] once the shapes are resolved: checks `out`, then runs the product, which
/// writes every element of `out`.
fn resolved<T: Element, const CAP: usize>(
    dims: &rules::MatMulDims<CAP>,
    a: ArrayRef<'_, T>,
    b: ArrayRef<'_, T>,
    options: MatMulOptions,
    out: &mut [MaybeUninit<T>],
) -> Result<(), Error> {
    let count = dims.out.element_count().unwrap_or(usize::MAX);
    if out.len() != count {
        let kind = ErrorKind::LengthMismatch {
            expected: count,
            actual: out.len(),
        };
        return Err(rules::matmul_error(kind, a.shape, b.shape));
    }
    let rank = dims.batch.len();
    let ra: Reader<CAP> = reader(&a, options.transpose_a, true, rank);
    let rb: Reader<CAP> = reader(&b, options.transpose_b, false, rank);
    let readers = [
        (ra.batch.as_slice(), ra.row, ra.col),
        (rb.batch.as_slice(), rb.row, rb.col),
    ];
    run(
        [dims.m, dims.k, dims.n],
        &dims.batch,
        readers,
        a.data,
        b.data,
        out,
    );
    Ok(())
}

/// How one operand is read: its strides along the output's batch axes, its row and column
/// strides.
pub(crate) type Read<'a> = (&'a [usize], usize, usize);

/// The product of `m x k` by `k x n` matrices over the `batch` axes into `out` (its length
/// checked), every element written: the one copy of the kernel, whatever the buffers'
/// capacity. The static products call it with their constant layout, which needs no
/// resolving.
pub(crate) fn run<T: Element>(
    [m, k, n]: [usize; 3],
    batch: &[usize],
    [(a_batch, a_row, a_col), (b_batch, b_row, b_col)]: [Read<'_>; 2],
    a: &[T],
    b: &[T],
    out: &mut [MaybeUninit<T>],
) {
    if out.is_empty() {
        return;
    }
    if k == 0 {
        // Sums of no terms (G6), whatever the strides: with an empty inner dim they address
        // nothing, and may be anything (`usize::MAX` overflowed the row offsets).
        for o in out {
            o.write(T::ZERO);
        }
        return;
    }
    // The blocked gemm or the loop nest, chosen once for the whole product: a split into row
    // blocks must not change how any element is computed.
    let gemm = m.saturating_mul(k).saturating_mul(n) >= GEMM_MIN;
    // A right operand shared by every batch (its batch strides all 0) over a left operand
    // whose batch and row axes step alike: one product of `batches * m` rows, a single gemm
    // call rather than one per batch (the `[4096, 64]` reshape a user would write by hand).
    let mut merged = b_batch.iter().all(|&s| s == 0) && (a_row != 0 || m == 1);
    let mut step = a_row.saturating_mul(m);
    for (&d, &s) in batch.iter().zip(a_batch).rev() {
        if d != 1 && s != step {
            merged = false;
        }
        step = step.saturating_mul(d);
    }
    // Output rows `first..` (of all `batches * m`) into `c`, whole rows: each batch's part is
    // one product with the operands' offsets for that batch and row.
    let rows = |first: usize, c: &mut [MaybeUninit<T>]| {
        if merged {
            let a_at = [first * a_row, a_row, a_col];
            let count = c.len() / n;
            return product([count, k, n], a, a_at, b, [0, b_row, b_col], c, gemm);
        }
        let (mut row, mut rest) = (first, c);
        while !rest.is_empty() {
            let (position, i) = (row / m, row % m);
            let take = (m - i).min(rest.len() / n);
            let (part, tail) = rest.split_at_mut(take * n);
            // The batch's multi-index, last axis fastest (every batch dim is non-zero here:
            // the output is not empty).
            let (mut a0, mut b0, mut flat) = (0, 0, position);
            for axis in (0..batch.len()).rev() {
                let (d, at) = (batch[axis], flat % batch[axis]);
                flat /= d;
                a0 += at * a_batch[axis];
                b0 += at * b_batch[axis];
            }
            let a_at = [a0 + i * a_row, a_row, a_col];
            product([take, k, n], a, a_at, b, [b0, b_row, b_col], part, gemm);
            (row, rest) = (row + take, tail);
        }
    };
    // Rows are independent, so large products split into blocks of rows (feature `rayon`).
    let total = out.len() / n;
    let tasks = super::parallel::tasks(out.len().saturating_mul(k) / MADDS_PER_ELEMENT, total);
    let per = total.div_ceil(tasks);
    super::parallel::for_each_chunk(out, per * n, tasks > 1, |t, c| rows(t * per, c));
}

/// One `m x k` by `k x n` product into `c` (row-major, `m * n`, every element written);
/// `a_at` and `b_at` are `[offset, row stride, column stride]`. With `gemm`, through the
/// blocked gemm where the element type has one.
#[inline(always)]
fn product<T: Element>(
    [m, k, n]: [usize; 3],
    a: &[T],
    a_at: [usize; 3],
    b: &[T],
    b_at: [usize; 3],
    c: &mut [MaybeUninit<T>],
    gemm: bool,
) {
    if gemm && blocked([m, k, n], a, a_at, b, b_at, c) {
        return;
    }
    small_product([m, k, n], a, a_at, b, b_at, c);
}

/// [`product`] without the blocked gemm: loop nests that add each output element's terms in
/// `k` order (G6).
#[inline(always)]
fn small_product<T: Element>(
    [m, k, n]: [usize; 3],
    a: &[T],
    a_at: [usize; 3],
    b: &[T],
    b_at: [usize; 3],
    c: &mut [MaybeUninit<T>],
) {
    // `f32`/`f64` with contiguous rows, on a CPU with AVX2: register tiles.
    #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
    {
        if super::tiles::product([m, k, n], a, a_at, b, b_at, c, [0, n]) == n {
            return;
        }
    }
    // Contiguous rows of `a` and of a `b` of 4 or 16 columns.
    if a_at[2] == 1 && b_at[2] == 1 && b_at[1] == n {
        match n {
            4 => return product_rows_of::<4, T>([m, k, n, 0], a, a_at, b, b_at[0], c),
            16 => return product_rows_of::<16, T>([m, k, n, 0], a, a_at, b, b_at[0], c),
            _ => {}
        }
    }
    if b_at[2] != 1 && n > 1 && (1..=SCRATCH).contains(&k) {
        return product_gathered([m, k, n], a, a_at, b, b_at, c);
    }
    row_passes([m, k, n, 0, n], a, a_at, b, b_at, c);
}

/// The output columns [`row_passes`] sums at a time, in a local array (the output may be
/// uninitialised, so it is only written). Blocks of 32 kept the sums in registers but took
/// 28% more instructions on an `i32` [64, 100] x [100, 70] than passes over whole rows.
const BLOCK: usize = 256;

/// Columns `j0..j0 + width` of the product into `c` (rows `n` long): `i`, then blocks of
/// [`BLOCK`] columns, then `k`, then `j`. The rows of `b` stream along `j`, and each output
/// element still adds its terms in `k` order, from the first term (G6), as the static kernel
/// does. A block is summed in a local array and stored once, so the output is only written:
/// it may start uninitialised.
#[inline(always)]
fn row_passes<T: Element>(
    [m, k, n, j0, width]: [usize; 5],
    a: &[T],
    a_at: [usize; 3],
    b: &[T],
    b_at: [usize; 3],
    c: &mut [MaybeUninit<T>],
) {
    // Zeroed once: the first pass over `k` overwrites what a block uses, and with `k` of 0
    // the zeros are the result (zeroed for each row, an `i32` [64, 100] x [100, 70] took 4%
    // more instructions).
    let mut sums = [<T::Acc as Element>::ZERO; BLOCK];
    for (i, row) in c.chunks_exact_mut(n).enumerate().take(m) {
        let a_row = a_at[0] + i * a_at[1];
        let mut j = 0;
        while j < width {
            let w = BLOCK.min(width - j);
            let acc = &mut sums[..w];
            for kk in 0..k {
                let (x, first) = (a[a_row + kk * a_at[2]].to_acc(), kk == 0);
                let b_row = b_at[0] + kk * b_at[1] + j * b_at[2];
                // A contiguous row of `b` as a slice, so that the pass vectorizes: with its
                // stride read at run time, the 512x512x512 `f32` loop nest took 46-54 ms,
                // against 11.9 ms for the hand loop.
                match b_at[2] {
                    1 => row_pass(
                        acc,
                        x,
                        b[b_row..b_row + w].iter().map(|y| y.to_acc()),
                        first,
                    ),
                    s => row_pass(acc, x, (0..w).map(|jj| b[b_row + jj * s].to_acc()), first),
                }
            }
            store(&mut row[j0 + j..j0 + j + w], acc);
            j += w;
        }
    }
}

/// [`product`] for `N` columns of the output from `j0`, with contiguous rows of `a` and a `b`
/// of `k` contiguous rows of `N` from `b0` (4 or 16 columns, or a gathered block of 16): the
/// row passes on fixed-size arrays, straight-line code. With a row pass of a run-time length,
/// whose vector loop LLVM guards by trip-count checks, a `[4, 4] x [4, 4]` `DynTensor` product
/// spent 1093 instructions in the kernel (ndarray's `dot`: 1956 for the whole call). Each row
/// is summed in registers and stored once (stored at every step of `k`, the 16x16x16
/// products of attention ran 28 instructions per 16 multiply-adds), and the operands are
/// walked by iterators, so no bounds check is left in the loop (16 instructions per 16
/// multiply-adds with them).
#[inline(always)]
fn product_rows_of<const N: usize, T: Element>(
    [m, k, n, j0]: [usize; 4],
    a: &[T],
    a_at: [usize; 3],
    b: &[T],
    b0: usize,
    c: &mut [MaybeUninit<T>],
) {
    let b = &b[b0..b0 + k * N];
    for (i, row) in c.chunks_exact_mut(n).enumerate().take(m) {
        let at = a_at[0] + i * a_at[1];
        let mut terms = a[at..at + k].iter().zip(b.chunks_exact(N));
        let mut acc = [<T::Acc as Element>::ZERO; N];
        if let Some((&x, ys)) = terms.next() {
            row_pass(&mut acc, x.to_acc(), ys.iter().map(|y| y.to_acc()), true);
        }
        for (&x, ys) in terms {
            row_pass(&mut acc, x.to_acc(), ys.iter().map(|y| y.to_acc()), false);
        }
        store(&mut row[j0..j0 + N], &acc);
    }
}

/// The elements of `b` that [`product_gathered`] copies at a time.
const SCRATCH: usize = 512;

/// [`product`] for a `b` whose rows are strided (a transposed operand, as in the scores
/// `q kᵀ` of attention): blocks of its columns are first copied into a contiguous scratch,
/// so the row passes vectorize as for a row-major `b`. Each output element adds the same
/// terms in the same order. Read in place, the 16x16x16 products of a transformer block's
/// attention ran 7.6 instructions per multiply-add (`benches/transformer_probe.rs`).
#[inline(always)]
fn product_gathered<T: Element>(
    [m, k, n]: [usize; 3],
    a: &[T],
    a_at: [usize; 3],
    b: &[T],
    b_at: [usize; 3],
    c: &mut [MaybeUninit<T>],
) {
    let mut scratch = [T::ZERO; SCRATCH];
    let cols = SCRATCH / k;
    let mut j0 = 0;
    while j0 < n {
        let width = cols.min(n - j0);
        let block = &mut scratch[..k * width];
        gather(block, width, b, [b_at[0] + j0 * b_at[2], b_at[1], b_at[2]]);
        #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
        {
            let at = [0, width, 1];
            if super::tiles::product([m, k, width], a, a_at, block, at, c, [j0, n]) == width {
                j0 += width;
                continue;
            }
        }
        if width == 16 && a_at[2] == 1 {
            // Attention's heads of 16: fixed-size row passes over the gathered block.
            product_rows_of::<16, T>([m, k, n, j0], a, a_at, block, 0, c);
        } else {
            row_passes([m, k, n, j0, width], a, a_at, block, [0, width, 1], c);
        }
        j0 += width;
    }
}

/// Copies `width` columns of `b` (`[offset, row stride, column stride]`, the offset that of
/// the first column) into `block`, row-major: as many rows as `block` holds.
#[inline(always)]
fn gather<T: Copy>(block: &mut [T], width: usize, b: &[T], [b0, b_row, b_col]: [usize; 3]) {
    for (kk, line) in block.chunks_exact_mut(width).enumerate() {
        let at = b0 + kk * b_row;
        for (jj, slot) in line.iter_mut().enumerate() {
            *slot = b[at + jj * b_col];
        }
    }
}

/// `row = x * ys` on the first pass over `k`, `row += x * ys` on the others, in the
/// accumulator type `A` (the operands widened to it: `f32` for `f16`/`bf16`).
#[inline(always)]
fn row_pass<A: Element>(row: &mut [A], x: A, ys: impl Iterator<Item = A>, first: bool) {
    let pairs = row.iter_mut().zip(ys);
    if first {
        pairs.for_each(|(o, y)| *o = A::mul(x, y));
    } else {
        pairs.for_each(|(o, y)| *o = A::add(*o, A::mul(x, y)));
    }
}

/// Writes `values`, rounded once to `T`, into the output slots `out` (as long).
#[inline(always)]
fn store<T: Element>(out: &mut [MaybeUninit<T>], values: &[T::Acc]) {
    for (o, &v) in out.iter_mut().zip(values) {
        o.write(T::from_acc(v));
    }
}

/// `c = a * b` by matrixmultiply's blocked gemm, when `T` is `f32` or `f64` and the feature
/// `matrixmultiply` is on; `false` (nothing written) otherwise. The dims and offsets are
/// those of [`product`]. Chosen by the type's identity rather than by a method of `Element`,
/// which anyone may implement: an unsafe call must not trust a safe trait's answer.
#[inline(always)]
fn blocked<T: Element>(
    [m, k, n]: [usize; 3],
    a: &[T],
    a_at: [usize; 3],
    b: &[T],
    b_at: [usize; 3],
    c: &mut [MaybeUninit<T>],
) -> bool {
    #[cfg(feature = "matrixmultiply")]
    {
        use core::any::TypeId;
        let (f32_id, f64_id, id) = (TypeId::of::<f32>(), TypeId::of::<f64>(), TypeId::of::<T>());
        if (id != f32_id && id != f64_id)
            || m == 0
            || n == 0
            || k == 0
            || c.len() != m * n
            || !fits(a_at, m, k, a.len())
            || !fits(b_at, k, n, b.len())
        {
            return false;
        }
        let (a, b, c) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
        let (ar, ac, br, bc) = (
            a_at[1] as isize,
            a_at[2] as isize,
            b_at[1] as isize,
            b_at[2] as isize,
        );
        // SAFETY: `T` is `f32` (or, below, `f64`): the type ids are equal, so the casts keep
        // the element type. Every offset the gemm reads, `offset + i * row + j * col` for `i`
        // below the rows and `j` below the columns, is at most the largest one, which `fits`
        // checked is inside the slice and at most `isize::MAX`, so the strides convert
        // losslessly. `c` is exactly `m x n`, row-major, and does not alias `a` or `b` (a
        // `&mut` borrow); with a `beta` of 0 the gemm writes every element of `c` and reads
        // none, so it may start uninitialised (matrixmultiply's documented contract).
        unsafe {
            if id == f32_id {
                let (a, b) = (a.cast::<f32>().add(a_at[0]), b.cast::<f32>().add(b_at[0]));
                let c = c.cast::<f32>();
                matrixmultiply::sgemm(m, k, n, 1.0, a, ar, ac, b, br, bc, 0.0, c, n as isize, 1);
            } else {
                let (a, b) = (a.cast::<f64>().add(a_at[0]), b.cast::<f64>().add(b_at[0]));
                let c = c.cast::<f64>();
                matrixmultiply::dgemm(m, k, n, 1.0, a, ar, ac, b, br, bc, 0.0, c, n as isize, 1);
            }
        }
        true
    }
    #[cfg(not(feature = "matrixmultiply"))]
    {
        let _ = ([m, k, n], a, a_at, b, b_at, c);
        false
    }
}

/// Whether the largest offset `[offset, row stride, column stride]` addresses in a `rows x
/// cols` matrix is inside `len` elements and at most `isize::MAX` (checked, so that the
/// blocked gemm may trust it).
#[cfg(feature = "matrixmultiply")]
fn fits(at: [usize; 3], rows: usize, cols: usize, len: usize) -> bool {
    let last = (rows - 1)
        .checked_mul(at[1])
        .and_then(|r| (cols - 1).checked_mul(at[2]).and_then(|c| r.checked_add(c)))
        .and_then(|x| x.checked_add(at[0]));
    last.is_some_and(|l| l < len && l <= isize::MAX as usize)
}

#[cfg(feature = "alloc")]
mod owned {
    use super::{resolved, Element, Error, MatMulOptions, SMALL};
    use crate::rules::{self, MatMulDims};
    use crate::runtime::dyn_tensor::{AsInput, DynTensor};
    use crate::runtime::{element_count, ArrayRef};

    /// The product into a new tensor: shared by tensors and views. The shapes are resolved
    /// once, in buffers of 8 dims for the common ranks.
    fn matmul_new<T: Element>(
        a: ArrayRef<'_, T>,
        b: ArrayRef<'_, T>,
        options: MatMulOptions,
    ) -> Result<DynTensor<T>, Error> {
        if a.shape.len() <= SMALL && b.shape.len() <= SMALL {
            let dims = rules::resolve_matmul::<SMALL>(a.shape, b.shape, options)?;
            new_resolved(&dims, a, b, options)
        } else {
            let dims = rules::resolve_matmul::<{ rules::MAX_RANK }>(a.shape, b.shape, options)?;
            new_resolved(&dims, a, b, options)
        }
    }

    fn new_resolved<T: Element, const CAP: usize>(
        dims: &MatMulDims<CAP>,
        a: ArrayRef<'_, T>,
        b: ArrayRef<'_, T>,
        options: MatMulOptions,
    ) -> Result<DynTensor<T>, Error> {
        let shape = dims.out.as_slice();
        let count = element_count::<T>(shape)?;
        // SAFETY: on `Ok`, `resolved` has written every element of the slice (the kernel
        // covers the output it checked is `count` long).
        let data = unsafe {
            crate::runtime::filled_vec(count, shape, |out| resolved(dims, a, b, options, out))?
        };
        Ok(DynTensor::from_parts(shape, data))
    }

    impl<T: Element> DynTensor<T> {
        /// The matrix product, numpy's `matmul` (G1-G6): the last two dims multiply, the
        /// others broadcast by NUMPY; a rank-1 operand is a row (left) or a column (right).
        /// The right operand is a tensor, a strided view (read in place) or an `ArrayRef`.
        ///
        /// ```
        /// use shaped::DynTensor;
        /// let q = DynTensor::from_elem([2, 1, 5, 3], 1.0f32)?;
        /// let k = DynTensor::from_elem([4, 3, 7], 1.0f32)?;
        /// assert_eq!(q.matmul(&k)?.shape(), [2, 4, 5, 7]);
        /// let e = q.matmul(&q).unwrap_err();
        /// assert_eq!(e.to_string(), "cannot multiply [2, 1, 5, 3] by [2, 1, 5, 3] (matmul): inner dims 3 vs 5 (G4)");
        /// # Ok::<(), shaped::Error>(())
        /// ```
        pub fn matmul(&self, rhs: &(impl AsInput<T> + ?Sized)) -> Result<DynTensor<T>, Error> {
            matmul_new(self.view(), rhs.as_input(), MatMulOptions::default())
        }

        /// [`matmul`](Self::matmul) with OpenVINO's `transpose_a`/`transpose_b` (G2): the
        /// transposed operand is read in place.
        ///
        /// ```
        /// use shaped::{rules::MatMulOptions, DynTensor};
        /// let a = DynTensor::from_shape_vec([3, 2], vec![1, 4, 2, 5, 3, 6])?; // [2, 3] stored transposed
        /// let b = DynTensor::from_shape_vec([3], vec![1, 1, 1])?;
        /// let t = MatMulOptions { transpose_a: true, transpose_b: false };
        /// assert_eq!(a.matmul_with(&b, t)?.as_slice(), &[6, 15]);
        /// # Ok::<(), shaped::Error>(())
        /// ```
        pub fn matmul_with(
            &self,
            rhs: &(impl AsInput<T> + ?Sized),
            options: MatMulOptions,
        ) -> Result<DynTensor<T>, Error> {
            matmul_new(self.view(), rhs.as_input(), options)
        }
    }

    impl<T: Element> crate::runtime::DynView<'_, T> {
        /// [`DynTensor::matmul_with`] on a view, read in place.
        pub fn matmul_with(
            &self,
            rhs: &(impl AsInput<T> + ?Sized),
            options: MatMulOptions,
        ) -> Result<DynTensor<T>, Error> {
            matmul_new(self.as_array_ref(), rhs.as_input(), options)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    /// Every layout the small kernel has (rows of 4 and 16, a gathered right operand in
    /// blocks of 16 and narrower, blocks of 32 columns and a rest, strided reads, an empty
    /// inner dim) writes every output slot (they start uninitialised: Miri reports a slot
    /// left unwritten) with each element's terms
    /// added in `k` order from the first (G6), bit for bit: floats with signed zeros,
    /// infinities and subnormals. Which NaN an operation on an infinity and its negation
    /// returns is unspecified (Miri picks at random), so NaNs compare as one.
    #[test]
    fn small_products_write_every_slot_in_k_order() {
        let bits = |x: f32| {
            if x.is_nan() {
                f32::NAN.to_bits()
            } else {
                x.to_bits()
            }
        };
        let specials = [0.0f32, -0.0, 1.5, -2.25, f32::INFINITY, 1e-40, -3e38, 7.0];
        let value = |i: usize| specials[i % specials.len()] * (1.0 + (i % 13) as f32 / 8.0);
        // [m, k, n], then `b`'s row and column strides.
        for ([m, k, n], [b_row, b_col]) in [
            ([3, 5, 4], [4, 1]),
            ([2, 7, 16], [16, 1]),
            ([3, 6, 16], [1, 6]),
            ([2, 32, 16], [1, 32]),
            ([2, 5, 16], [32, 1]),
            ([2, 40, 20], [1, 40]),
            ([4, 3, 70], [70, 1]),
            ([2, 5, 35], [1, 5]),
            ([3, 0, 5], [5, 1]),
        ] {
            let a: Vec<f32> = (0..m * k).map(value).collect();
            let len = if k == 0 {
                0
            } else {
                (k - 1) * b_row + (n - 1) * b_col + 1
            };
            let b: Vec<f32> = (0..len).map(|i| value(i + 3)).collect();
            let (a_at, b_at) = ([0, k, 1], [0, b_row, b_col]);
            let mut out = std::vec![MaybeUninit::<f32>::uninit(); m * n];
            small_product([m, k, n], &a, a_at, &b, b_at, &mut out);
            // SAFETY: the kernel writes every slot of its output (what this test checks,
            // under Miri).
            let got: Vec<u32> = out
                .iter()
                .map(|x| bits(unsafe { x.assume_init() }))
                .collect();
            let expected: Vec<u32> = (0..m * n)
                .map(|at| {
                    let (i, j) = (at / n, at % n);
                    let term = |kk: usize| a[i * k + kk] * b[kk * b_row + j * b_col];
                    bits((1..k).fold(if k == 0 { 0.0 } else { term(0) }, |s, kk| s + term(kk)))
                })
                .collect();
            assert_eq!(got, expected, "[{m}, {k}, {n}]");
        }
    }
}
