//! Feature `rayon`: work split across threads gives the results of one thread, bit for bit,
//! whatever the thread count (1, 2 and 4), and large work really is split.
#![cfg(feature = "rayon")]

mod common;

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use common::Lcg;
use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};
use shaped::runtime::{binary_into, single_threaded, BinaryPlan, MIN_PARALLEL};
use shaped::{AutoBroadcast, BinaryOp, DynTensor, Element, LogicalOp};

/// A pool of 1, 2 or 4 threads, built once.
fn pool(threads: usize) -> &'static rayon::ThreadPool {
    static POOLS: OnceLock<[rayon::ThreadPool; 3]> = OnceLock::new();
    let pools = POOLS.get_or_init(|| {
        [1, 2, 4].map(|n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        })
    });
    &pools[threads.trailing_zeros() as usize]
}

/// The global pool, 4 threads: what a call from outside every pool (this test's own thread)
/// shares its work with.
fn global_pool() {
    static GLOBAL: OnceLock<()> = OnceLock::new();
    GLOBAL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build_global()
            .expect("no other test builds the global pool");
    });
}

/// `f()` in pools of 1, 2 and 4 threads, from outside every pool (the calling thread works
/// beside the global pool's), and in `single_threaded`: all five results.
fn each_pool<R: Send>(f: impl Fn() -> R + Sync) -> Vec<R> {
    global_pool();
    let mut out: Vec<R> = [1, 2, 4].iter().map(|&n| pool(n).install(&f)).collect();
    out.push(f());
    out.push(pool(4).install(|| single_threaded(&f)));
    out
}

fn bits(t: &DynTensor<f32>) -> (Vec<usize>, Vec<u32>) {
    (t.shape().to_vec(), t.iter().map(|x| x.to_bits()).collect())
}

fn random(rng: &mut Lcg, shape: &[usize]) -> DynTensor<f32> {
    let n = shape.iter().product();
    let data = (0..n)
        .map(|_| rng.below(2001) as f32 * 0.37 - 370.0)
        .collect();
    DynTensor::from_shape_vec(shape, data).unwrap()
}

/// Random broadcasting pairs of at least `MIN_PARALLEL` output elements.
fn large_pairs(rng: &mut Lcg) -> Vec<(Vec<usize>, Vec<usize>)> {
    let mut pairs = vec![
        (vec![512, 512], vec![1, 512]),
        (vec![512, 1], vec![1, 512]),
        (vec![8, 64, 24, 24], vec![1, 64, 1, 1]),
        (vec![300_000], vec![300_000]),
        (vec![3, 100_000], vec![3, 1]),
    ];
    while pairs.len() < 8 {
        let rank = 2 + rng.below(3);
        let out: Vec<usize> = (0..rank).map(|_| 1 + rng.below(90)).collect();
        let count = out.iter().product::<usize>();
        if !(MIN_PARALLEL..500_000).contains(&count) {
            continue;
        }
        let b = out
            .iter()
            .map(|&d| if rng.below(2) == 0 { 1 } else { d })
            .collect();
        pairs.push((out, b));
    }
    pairs
}

#[test]
fn elementwise_results_do_not_depend_on_threads() {
    let mut rng = Lcg(7);
    for (sa, sb) in large_pairs(&mut rng) {
        let (a, b) = (random(&mut rng, &sa), random(&mut rng, &sb));
        for op in [BinaryOp::Add, BinaryOp::Div] {
            let runs = each_pool(|| bits(&a.binary(&b, op, AutoBroadcast::Numpy).unwrap()));
            assert!(
                runs.windows(2).all(|w| w[0] == w[1]),
                "{sa:?} {op:?} {sb:?}"
            );
            // The kernel into a buffer, the prepared plan, and `+=` agree with it.
            let n = runs[0].1.len();
            let into = each_pool(|| {
                let mut o = vec![0.0f32; n];
                binary_into(a.view(), b.view(), op, AutoBroadcast::Numpy, &mut o).unwrap();
                o.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            });
            assert!(into.iter().all(|r| *r == runs[0].1));
            let plan = BinaryPlan::new(&sa, &sb, AutoBroadcast::Numpy).unwrap();
            let prepared = each_pool(|| {
                let mut o = vec![0.0f32; n];
                plan.binary(a.as_slice(), b.as_slice(), op, &mut o).unwrap();
                o.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            });
            assert!(prepared.iter().all(|r| *r == runs[0].1));
        }
        // `+=` needs `b` to fit onto `a` (B5).
        if shaped::broadcast_shapes(&sa, &sb, AutoBroadcast::Numpy).unwrap() == sa[..] {
            let updated = each_pool(|| {
                let mut c = a.clone();
                c += &b;
                bits(&c)
            });
            assert!(updated.iter().all(|r| *r == bits(&(&a + &b))));
        }
        let lt = each_pool(|| {
            a.compare(&b, shaped::CompareOp::Lt, AutoBroadcast::Numpy)
                .unwrap()
        });
        assert!(lt.windows(2).all(|w| w[0] == w[1]));
        assert_eq!(
            lt[0],
            a.zip_with(&b, AutoBroadcast::Numpy, |x, y| x < y).unwrap()
        );
        let out_shape = shaped::broadcast_shapes(&sa, &sb, AutoBroadcast::Numpy).unwrap();
        let stretched = each_pool(|| bits(&b.broadcast_to(out_shape).unwrap()));
        assert!(stretched.windows(2).all(|w| w[0] == w[1]));
        let zeros = DynTensor::from_elem(&out_shape[..], 0.0f32).unwrap();
        assert_eq!(stretched[0], bits(&(&zeros + &b)));
        let (x, y) = (a.map(|v| *v > 0.0), b.map(|v| *v < 10.0));
        let logical = each_pool(|| x.logical(&y, LogicalOp::Xor, AutoBroadcast::Numpy).unwrap());
        assert!(logical.windows(2).all(|w| w[0] == w[1]));
    }
}

#[test]
fn float_sums_do_not_depend_on_threads() {
    let mut rng = Lcg(11);
    let shapes: Vec<Vec<usize>> = vec![
        vec![1 << 18],
        vec![1024, 1024],
        vec![4000, 70],
        vec![5, 1500, 40],
        vec![2, 3, 50_000],
        vec![300_000, 1],
    ];
    for shape in shapes {
        let a = random(&mut rng, &shape);
        let rank = shape.len() as i64;
        let mut axes: Vec<Vec<i64>> = (0..rank).map(|x| vec![x]).collect();
        axes.push((0..rank).collect());
        for ax in axes {
            let runs = each_pool(|| bits(&a.sum(&ax, false).unwrap()));
            assert!(
                runs.windows(2).all(|w| w[0] == w[1]),
                "{shape:?} over {ax:?}"
            );
            let means = each_pool(|| bits(&a.mean(&ax, true).unwrap()));
            assert!(
                means.windows(2).all(|w| w[0] == w[1]),
                "{shape:?} over {ax:?}"
            );
            let maxes = each_pool(|| bits(&a.max(&ax, false).unwrap()));
            assert!(
                maxes.windows(2).all(|w| w[0] == w[1]),
                "{shape:?} over {ax:?}"
            );
            let near_one = a.map(|x| 1.0 + x * 1e-6);
            let prods = each_pool(|| bits(&near_one.prod(&ax, false).unwrap()));
            assert!(
                prods.windows(2).all(|w| w[0] == w[1]),
                "{shape:?} over {ax:?}"
            );
        }
        for axis in 0..rank {
            let args = each_pool(|| a.argmin(axis, false).unwrap());
            assert!(
                args.windows(2).all(|w| w[0] == w[1]),
                "{shape:?} over {axis}"
            );
            // Against an index-by-index reference on the first output.
            let at = |k: usize| {
                let mut index = vec![0; shape.len()];
                index[axis as usize] = k;
                a[index]
            };
            let reference = (0..shape[axis as usize])
                .min_by(|&i, &j| at(i).partial_cmp(&at(j)).unwrap().then(i.cmp(&j)))
                .unwrap();
            assert_eq!(args[0].as_slice()[0], reference, "{shape:?} over {axis}");
        }
    }
}

/// The bits of the element an in-order NaN-propagating fold keeps: a NaN beats a number, and
/// otherwise only a strictly larger (`keep_max`) or smaller value replaces the one held.
fn first_kept(values: impl Iterator<Item = f32>, keep_max: bool) -> u32 {
    let mut values = values;
    let mut best = values.next().unwrap();
    for v in values {
        let beyond = if keep_max { v > best } else { v < best };
        if (v.is_nan() && !best.is_nan()) || beyond {
            best = v;
        }
    }
    best.to_bits()
}

/// `max` (`keep_max`) or `min` of `a` over `axis`, in every pool, has exactly `expect`'s bits.
fn assert_extremes(a: &DynTensor<f32>, axis: i64, keep_max: bool, expect: &[u32]) {
    let runs = each_pool(|| {
        let r = if keep_max {
            a.max(&[axis], false)
        } else {
            a.min(&[axis], false)
        };
        bits(&r.unwrap()).1
    });
    for (i, run) in runs.iter().enumerate() {
        let wrong = (0..expect.len()).find(|&j| run[j] != expect[j]);
        assert_eq!(
            wrong.map(|j| (j, run[j], expect[j])),
            None,
            "{} of {:?} over axis {axis}, run {i}: (output, bits, expected)",
            if keep_max { "max" } else { "min" },
            a.shape()
        );
    }
}

/// `max` and `min` over the rows of one block (split into row halves across threads) and
/// over the last axis (folded in lanes, then searched):
/// the element kept is the one an in-order fold keeps (the first NaN, with its payload; else
/// the first of equal extremes, so `0.0` or `-0.0` by position), bit for bit, whatever the
/// thread count. The values come from a small set, so ties, signed zeros and NaNs with
/// different payloads fall on both sides of every split.
#[test]
fn extremes_keep_the_first_preferred_element_whatever_the_threads() {
    let mut rng = Lcg(13);
    let pool_of = [
        1.5f32,
        -2.0,
        0.0,
        -0.0,
        7.25,
        7.25,
        f32::from_bits(0x7fc0_0001),
        f32::from_bits(0xffc0_0002),
        -7.25,
        -0.0,
    ];
    for shape in [[1024usize, 1024], [4000, 70], [300, 1000], [257, 512]] {
        let (n, inner) = (shape[0], shape[1]);
        // NaNs only in some columns, and only past the middle in some of those: a NaN in the
        // upper half must win over the lower half's number.
        let data: Vec<f32> = (0..n * inner)
            .map(|i| {
                let (row, col) = (i / inner, i % inner);
                let v = pool_of[rng.below(pool_of.len() as u64)];
                match (v.is_nan(), col % 3, row < n / 2) {
                    (true, 0, _) | (true, 1, true) => 0.0,
                    _ => v,
                }
            })
            .collect();
        let a = DynTensor::from_shape_vec(shape, data.clone()).unwrap();
        for keep in [true, false] {
            let columns: Vec<u32> = (0..inner)
                .map(|c| first_kept((0..n).map(|k| data[k * inner + c]), keep))
                .collect();
            assert_extremes(&a, 0, keep, &columns);
            // Over the last axis: each row a contiguous run, folded in lanes, then searched.
            let rows: Vec<u32> = data
                .chunks(inner)
                .map(|row| first_kept(row.iter().copied(), keep))
                .collect();
            assert_extremes(&a, 1, keep, &rows);
        }
        // The case covers what it claims: NaN results in both directions.
        let maxes = a.max(&[0], false).unwrap();
        assert!(maxes.iter().any(|x| x.is_nan()));
        let mins = a.min(&[0], false).unwrap();
        assert!(mins.iter().any(|x| x.is_nan()));
    }
    // Over the last axis with no NaN: the extreme is a zero of either sign, and the first
    // zero of the row decides which.
    for (keep, other) in [(true, -3.0f32), (false, 3.0)] {
        let data: Vec<f32> = (0..300 * 1000)
            .map(|_| [0.0, -0.0, other][rng.below(3)])
            .collect();
        let t = DynTensor::from_shape_vec([300, 1000], data.clone()).unwrap();
        let expect: Vec<u32> = data
            .chunks(1000)
            .map(|row| row.iter().find(|x| **x == 0.0).unwrap().to_bits())
            .collect();
        assert!(expect.contains(&0) && expect.contains(&(-0.0f32).to_bits()));
        assert_extremes(&t, 1, keep, &expect);
    }
    let zeros = DynTensor::from_shape_vec(
        [1024, 256],
        (0..1024 * 256)
            .map(|i| if i / 256 >= 512 { 0.0f32 } else { -0.0 })
            .collect(),
    )
    .unwrap();
    // The upper half of the rows holds 0.0, the lower -0.0: they compare equal, so the first
    // (-0.0) stays, however the halves are combined.
    let runs = each_pool(|| bits(&zeros.max(&[0], false).unwrap()).1);
    assert!(runs
        .iter()
        .all(|r| r.iter().all(|&b| b == (-0.0f32).to_bits())));
}

#[test]
fn the_primitive_does_not_depend_on_threads() {
    let mut rng = Lcg(5);
    let dims = [8, 64, 28, 28];
    let src = random(&mut rng, &dims);
    let bias = random(&mut rng, &[1, 64, 1, 1]);
    let scale = random(&mut rng, &[1, 64, 1, 1]);
    for layout in [Layout::RowMajor, Layout::ChannelsLast] {
        let a = MemRef::new(dims, src.as_slice(), layout).unwrap();
        let b = MemRef::new([1, 64, 1, 1], bias.as_slice(), Layout::RowMajor).unwrap();
        let s = MemRef::new([1, 64, 1, 1], scale.as_slice(), Layout::RowMajor).unwrap();
        let fused = Binary::new(Alg::Add)
            .post_op(PostOp::Eltwise(Eltwise::Relu))
            .post_op(PostOp::binary(Alg::Mul, &s))
            .post_op(PostOp::Sum { scale: 0.5 });
        let runs = each_pool(|| {
            let m = fused.run(&a, &b).unwrap();
            m.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        });
        assert!(runs.windows(2).all(|w| w[0] == w[1]), "{layout:?}");
        let into = each_pool(|| {
            let mut out = vec![1.0f32; src.len()];
            let mut dst = MemMut::new(dims, &mut out, layout).unwrap();
            fused.run_into(&a, &b, &mut dst).unwrap();
            out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        });
        assert!(into.windows(2).all(|w| w[0] == w[1]), "{layout:?}");
    }
}

/// An element that records the threads its additions, products, comparisons, bitwise ands
/// and unary functions ran on: the proof that work is split.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Traced(f32);

impl PartialOrd for Traced {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        record();
        self.0.partial_cmp(&other.0)
    }
}

macro_rules! traced_bits {
    ($($Trait:ident $method:ident $op:tt;)*) => {$(
        impl std::ops::$Trait for Traced {
            type Output = Self;
            fn $method(self, rhs: Self) -> Self {
                record();
                Traced(f32::from_bits(self.0.to_bits() $op rhs.0.to_bits()))
            }
        }
    )*};
}
traced_bits! { BitAnd bitand &; BitOr bitor |; BitXor bitxor ^; }
impl shaped::Boolean for Traced {}

macro_rules! traced_arithmetic {
    ($($Trait:ident $method:ident $op:tt;)*) => {$(
        impl std::ops::$Trait for Traced {
            type Output = Self;
            fn $method(self, rhs: Self) -> Self {
                Traced(self.0 $op rhs.0)
            }
        }
    )*};
}
traced_arithmetic! { Add add +; Sub sub -; Mul mul *; Div div /; }

impl shaped::Real for Traced {
    type Compute = Traced;
    fn to_compute(self) -> Self {
        self
    }
    fn from_compute(x: Self) -> Self {
        x
    }
    fn as_compute(x: &[Self]) -> Option<&[Self]> {
        Some(x)
    }
    fn as_compute_mut(x: &mut [Self]) -> Option<&mut [Self]> {
        Some(x)
    }
    fn from_f32(x: f32) -> Self {
        Traced(x)
    }
    fn from_f64(x: f64) -> Self {
        Traced(x as f32)
    }
    fn erf(self) -> Self {
        record();
        Traced(shaped::Real::erf(self.0))
    }
    fn sqrt(self) -> Self {
        Traced(self.0.sqrt())
    }
    fn exp(self) -> Self {
        record();
        Traced(self.0.exp())
    }
    fn tanh(self) -> Self {
        Traced(self.0.tanh())
    }
    fn ln(self) -> Self {
        Traced(self.0.ln())
    }
}

static THREADS: Mutex<Option<HashSet<std::thread::ThreadId>>> = Mutex::new(None);

fn record() {
    let mut seen = THREADS.lock().unwrap();
    seen.get_or_insert_with(HashSet::new)
        .insert(std::thread::current().id());
}

/// Held by each test that counts threads, for its whole run: tests run in parallel, and the
/// count is global. Taken on the test's own thread, outside every pool: a pool worker blocked
/// on it could be the one a splitting call waits for.
fn counting_threads() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// How many threads ran `f`'s recorded operations (see [`counting_threads`]).
fn threads_seen(f: impl FnOnce()) -> usize {
    *THREADS.lock().unwrap() = Some(HashSet::new());
    f();
    THREADS.lock().unwrap().as_ref().map_or(0, HashSet::len)
}

impl Element for Traced {
    const ZERO: Self = Traced(0.0);
    const ONE: Self = Traced(1.0);
    const INTEGER: bool = false;
    const HAS_POW: bool = false;
    type Acc = Self;
    fn to_acc(self) -> Self {
        self
    }
    fn from_acc(x: Self) -> Self {
        x
    }
    fn acc_slice_mut(x: &mut [Self]) -> Option<&mut [Self]> {
        Some(x)
    }
    fn is_zero(self) -> bool {
        self.0 == 0.0
    }
    fn is_negative(self) -> bool {
        self.0 < 0.0
    }
    fn add(a: Self, b: Self) -> Self {
        record();
        Traced(a.0 + b.0)
    }
    fn sub(a: Self, b: Self) -> Self {
        Traced(a.0 - b.0)
    }
    fn mul(a: Self, b: Self) -> Self {
        record();
        Traced(a.0 * b.0)
    }
    fn div(a: Self, b: Self) -> Self {
        Traced(a.0 / b.0)
    }
    fn rem(a: Self, b: Self) -> Self {
        Traced(a.0 % b.0)
    }
    fn floor_mod(a: Self, b: Self) -> Self {
        Traced(a.0 - (a.0 / b.0).floor() * b.0)
    }
    fn pow(a: Self, _: Self) -> Self {
        a
    }
    fn neg(a: Self) -> Self {
        Traced(-a.0)
    }
}

#[test]
fn large_work_is_split_and_small_work_is_not() {
    let _counting = counting_threads();
    let big = DynTensor::from_elem([512, 512], Traced(1.0)).unwrap();
    let row = DynTensor::from_elem([512], Traced(2.0)).unwrap();
    let four = pool(4);
    assert!(four.install(|| threads_seen(|| drop(&big + &row))) > 1);
    assert!(four.install(|| threads_seen(|| drop(big.sum(&[0, 1], false).unwrap()))) > 1);
    assert!(four.install(|| threads_seen(|| drop(big.sum(&[0], false).unwrap()))) > 1);
    // Products fold along the axis: split over rows, or over the columns of a single block
    // when each stripe keeps at least 8 KiB of a row (2048 `f32` columns); narrower stripes
    // read slower than one thread does, so a 512-column block stays on one thread.
    assert!(four.install(|| threads_seen(|| drop(big.prod(&[1], false).unwrap()))) > 1);
    assert_eq!(
        four.install(|| threads_seen(|| drop(big.prod(&[0], false).unwrap()))),
        1
    );
    let wide = DynTensor::from_elem([64, 8192], Traced(1.0)).unwrap();
    assert!(four.install(|| threads_seen(|| drop(wide.prod(&[0], false).unwrap()))) > 1);
    // `max` over the rows of one block splits the rows into halves.
    assert!(four.install(|| threads_seen(|| drop(big.max(&[0], false).unwrap()))) > 1);
    assert!(four.install(|| threads_seen(|| drop(wide.max(&[0], false).unwrap()))) > 1);
    // The operation is matched inside the kernel, its split path a function of its own: the
    // kernel into a buffer and the prepared plan split too, and small work stays here.
    let mut out = vec![Traced(0.0); 512 * 512];
    let (view, row_view) = (big.view(), row.view());
    let numpy = AutoBroadcast::Numpy;
    let seen = four.install(|| {
        threads_seen(|| binary_into(view, row_view, BinaryOp::Mul, numpy, &mut out).unwrap())
    });
    assert!(seen > 1);
    assert_eq!(out[7], Traced(2.0));
    let plan = BinaryPlan::new(&[512, 512], &[512], numpy).unwrap();
    let (x, y) = (big.as_slice(), row.as_slice());
    let seen =
        four.install(|| threads_seen(|| plan.binary(x, y, BinaryOp::Add, &mut out).unwrap()));
    assert!(seen > 1);
    assert_eq!(out[7], Traced(3.0));
    let head = shaped::runtime::ArrayRef::new(&[2, 512], &x[..1024]).unwrap();
    let mut few = vec![Traced(0.0); 1024];
    let seen = four.install(|| {
        threads_seen(|| binary_into(head, row_view, BinaryOp::Add, numpy, &mut few).unwrap())
    });
    assert_eq!(seen, 1);
    assert_eq!(few[1023], Traced(3.0));
    // From outside every pool, this thread works beside the global pool's.
    global_pool();
    assert!(threads_seen(|| drop(&big + &row)) > 1);
    assert!(threads_seen(|| drop(big.sum(&[0, 1], false).unwrap())) > 1);
    assert!(threads_seen(|| drop(wide.prod(&[0], false).unwrap())) > 1);
    assert!(threads_seen(|| drop(big.max(&[0], false).unwrap())) > 1);
    assert_eq!(threads_seen(|| single_threaded(|| drop(&big + &row))), 1);
    // Below the threshold, inside `single_threaded`, and in a pool of one thread: one thread.
    let small = DynTensor::from_elem([MIN_PARALLEL / 1024 - 1, 1024], Traced(1.0)).unwrap();
    let small_row = DynTensor::from_elem([1024], Traced(2.0)).unwrap();
    assert_eq!(
        four.install(|| threads_seen(|| drop(&small + &small_row))),
        1
    );
    let alone = four.install(|| threads_seen(|| single_threaded(|| drop(&big + &row))));
    assert_eq!(alone, 1);
    assert_eq!(pool(1).install(|| threads_seen(|| drop(&big + &row))), 1);
}

#[test]
fn static_heap_and_mixed_results_do_not_depend_on_threads() {
    use shaped::{HeapTensor, Shape, Tensor};
    let mut rng = Lcg(3);
    let x = random(&mut rng, &[512, 512]);
    let r = random(&mut rng, &[512]);
    let heap = HeapTensor::<f32, Shape![512, 512]>::from_vec(x.as_slice().to_vec()).unwrap();
    let row = Tensor::<f32, Shape![512]>::from_fn(|[i]| r.as_slice()[i]);
    let mixed =
        Tensor::<f32, Shape![_, 512]>::from_shape_vec([512, 512], x.as_slice().to_vec()).unwrap();
    let expect: Vec<u32> = (&x + &r).iter().map(|v| v.to_bits()).collect();
    let as_bits = |s: &[f32]| s.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    for run in each_pool(|| as_bits((&heap + row).as_slice())) {
        assert_eq!(run, expect);
    }
    for run in each_pool(|| as_bits((&mixed * row).as_slice())) {
        assert_eq!(run, as_bits(&(&x * &r).into_vec()));
    }
    let sums = each_pool(|| as_bits(heap.sum_axis::<0>().as_slice()));
    assert!(sums.windows(2).all(|w| w[0] == w[1]));
    assert_eq!(sums[0], as_bits(x.sum(&[0], false).unwrap().as_slice()));
}

#[test]
fn static_heap_and_mixed_work_is_split() {
    let _counting = counting_threads();
    use shaped::{HeapTensor, Shape, Tensor};
    let heap =
        HeapTensor::<Traced, Shape![512, 512]>::from_vec(vec![Traced(1.0); 1 << 18]).unwrap();
    let row = Tensor::<Traced, Shape![512]>::splat(Traced(2.0));
    let mixed =
        Tensor::<Traced, Shape![_, 512]>::from_shape_vec([512, 512], vec![Traced(1.0); 1 << 18])
            .unwrap();
    let four = pool(4);
    assert!(four.install(|| threads_seen(|| drop(&heap + row))) > 1);
    assert!(four.install(|| threads_seen(|| drop(&mixed + row))) > 1);
    // `try_*`, whose operation is matched inside the kernel.
    let sum = four
        .install(|| threads_seen(|| assert_eq!(mixed.try_add(&row).unwrap()[[5, 9]], Traced(3.0))));
    assert!(sum > 1);
    assert_eq!(
        four.install(|| threads_seen(|| single_threaded(|| drop(&heap + row)))),
        1
    );
}

/// Every elementwise operation of static heap-backed, mixed and runtime tensors splits large
/// work: the methods (`maximum`, comparisons, `and`), the bitwise operators, unary math,
/// `-t`, `+=`, `broadcast_to`, and the `try_*` comparisons.
#[test]
fn every_elementwise_operation_splits_large_work() {
    let _counting = counting_threads();
    global_pool();
    use shaped::{HeapTensor, Shape, Tensor};
    let n = 1 << 18;
    let heap = HeapTensor::<Traced, Shape![512, 512]>::from_vec(vec![Traced(-1.0); n]).unwrap();
    let row = Tensor::<Traced, Shape![512]>::splat(Traced(2.0));
    let mixed = Tensor::<Traced, Shape![_, 512]>::from_shape_vec([512, 512], vec![Traced(-1.0); n])
        .unwrap();
    let dynamic = DynTensor::from_elem([512, 512], Traced(-1.0)).unwrap();
    let four = pool(4);
    let split = |name: &str, f: &(dyn Fn() + Sync)| {
        assert!(
            four.install(|| threads_seen(f)) > 1,
            "{name} ran on one thread"
        );
        let alone = four.install(|| threads_seen(|| single_threaded(f)));
        assert_eq!(alone, 1, "{name} left its thread inside single_threaded");
    };
    split("heap maximum", &|| {
        assert_eq!(heap.maximum(row)[[3, 4]], Traced(2.0))
    });
    split("mixed maximum", &|| {
        assert_eq!(mixed.maximum(row)[[3, 4]], Traced(2.0))
    });
    split("heap lt", &|| assert!(heap.lt(row)[[3, 4]]));
    split("mixed ge", &|| assert!(!mixed.ge(row)[[3, 4]]));
    split("mixed try_lt", &|| {
        assert!(mixed.try_lt(&row).unwrap()[[3, 4]])
    });
    split("heap &", &|| {
        let bits = (-1.0f32).to_bits() & 2.0f32.to_bits();
        assert_eq!((&heap & row)[[3, 4]], Traced(f32::from_bits(bits)))
    });
    split("mixed relu", &|| {
        assert_eq!(mixed.relu()[[3, 4]], Traced(0.0))
    });
    split("heap abs", &|| assert_eq!(heap.abs()[[3, 4]], Traced(1.0)));
    split("mixed exp", &|| {
        assert_eq!(mixed.exp()[[3, 4]], Traced((-1.0f32).exp()))
    });
    split("dynamic relu", &|| {
        assert_eq!(dynamic.relu()[[3, 4]], Traced(0.0))
    });
    split("dynamic exp", &|| {
        assert_eq!(dynamic.exp()[[3, 4]], Traced((-1.0f32).exp()))
    });
    split("dynamic clip", &|| {
        assert_eq!(dynamic.clip(Traced(0.5), Traced(1.0))[[3, 4]], Traced(0.5))
    });
    split("heap +=", &|| {
        let mut h = heap.clone();
        h += row;
        assert_eq!(h[[3, 4]], Traced(1.0));
    });
    split("mixed +=", &|| {
        let mut m = mixed.clone();
        m += row;
        assert_eq!(m[[3, 4]], Traced(1.0));
    });
    // Bool results and bool inputs: the logical methods, `try_and`.
    let (x, y) = (mixed.lt(row), mixed.gt(row));
    let (xb, yb) = (
        x.map(|&v| Traced(v as u8 as f32)),
        y.map(|&v| Traced(v as u8 as f32)),
    );
    split("mixed and (bitwise)", &|| {
        assert_eq!(xb.and(&yb)[[3, 4]], Traced(0.0))
    });
    assert_eq!(
        x.try_and(&y)
            .unwrap()
            .as_slice()
            .iter()
            .filter(|&&v| v)
            .count(),
        0
    );
    assert_eq!(
        x.try_or(&y)
            .unwrap()
            .as_slice()
            .iter()
            .filter(|&&v| v)
            .count(),
        n
    );
}

/// `broadcast_to` copies: a static heap result and a mixed one split, and agree with one
/// thread.
#[test]
fn broadcasts_and_bool_operations_do_not_depend_on_threads() {
    global_pool();
    use shaped::{HeapTensor, Shape, Tensor};
    let mut rng = Lcg(13);
    let r = random(&mut rng, &[512]);
    let x = random(&mut rng, &[512, 512]);
    let row = HeapTensor::<f32, Shape![1, 512]>::from_vec(r.as_slice().to_vec()).unwrap();
    let mixed_row =
        Tensor::<f32, Shape![_, 512]>::from_shape_vec([1, 512], r.as_slice().to_vec()).unwrap();
    let mixed =
        Tensor::<f32, Shape![_, 512]>::from_shape_vec([512, 512], x.as_slice().to_vec()).unwrap();
    let as_bits = |s: &[f32]| s.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let expect = as_bits(r.broadcast_to([512, 512]).unwrap().as_slice());
    for run in each_pool(|| as_bits(row.broadcast_to::<Shape![512, 512]>().as_slice())) {
        assert_eq!(run, expect);
    }
    for run in each_pool(|| {
        as_bits(
            mixed_row
                .try_broadcast_to::<Shape![_, 512]>([512, 512])
                .unwrap()
                .as_slice(),
        )
    }) {
        assert_eq!(run, expect);
    }
    // Comparisons and logical operations on bools, every path against `DynTensor`'s.
    let lt = x
        .compare(&r, shaped::CompareOp::Lt, AutoBroadcast::Numpy)
        .unwrap();
    for run in each_pool(|| mixed.lt(&mixed_row).as_slice().to_vec()) {
        assert_eq!(run, lt.as_slice());
    }
    for run in each_pool(|| mixed.try_lt(&mixed_row).unwrap().as_slice().to_vec()) {
        assert_eq!(run, lt.as_slice());
    }
    let gt = mixed.gt(&mixed_row);
    let lt_mixed = mixed.lt(&mixed_row);
    let either = lt
        .logical(
            &x.compare(&r, shaped::CompareOp::Gt, AutoBroadcast::Numpy)
                .unwrap(),
            LogicalOp::Or,
            AutoBroadcast::Numpy,
        )
        .unwrap();
    for run in each_pool(|| lt_mixed.try_or(&gt).unwrap().as_slice().to_vec()) {
        assert_eq!(run, either.as_slice());
    }
    for run in each_pool(|| (&lt_mixed | &gt).as_slice().to_vec()) {
        assert_eq!(run, either.as_slice());
    }
}

/// Unary math, `maximum`, `-t` and `+=` on every path: bit for bit the same whatever the
/// thread count, and the same on static heap-backed, mixed and runtime tensors.
#[test]
fn unary_math_and_methods_do_not_depend_on_threads() {
    global_pool();
    use shaped::{HeapTensor, Shape, Tensor};
    let mut rng = Lcg(17);
    let x = random(&mut rng, &[512, 512]).map(|v| v / 100.0);
    let r = random(&mut rng, &[512]);
    let heap = HeapTensor::<f32, Shape![512, 512]>::from_vec(x.as_slice().to_vec()).unwrap();
    let mixed =
        Tensor::<f32, Shape![_, 512]>::from_shape_vec([512, 512], x.as_slice().to_vec()).unwrap();
    let row = Tensor::<f32, Shape![512]>::from_fn(|[i]| r.as_slice()[i]);
    let as_bits = |s: &[f32]| s.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    // The reference: element by element on this thread.
    let each = |f: fn(f32) -> f32| as_bits(&x.iter().map(|&v| f(v)).collect::<Vec<_>>());
    type Unary = fn(f32) -> f32;
    let cases: [(&str, Unary); 4] = [
        ("gelu_tanh", |v| {
            let k = 0.797_884_6f32;
            0.5 * v * (1.0 + (k * (v + 0.044_715 * v * v * v)).tanh())
        }),
        ("exp", f32::exp),
        ("tanh", f32::tanh),
        ("neg", |v| -v),
    ];
    for (name, f) in cases {
        let expect = each(f);
        let runs = each_pool(|| match name {
            "gelu_tanh" => [
                x.gelu_tanh().into_vec(),
                heap.gelu_tanh().as_slice().to_vec(),
                mixed.gelu_tanh().as_slice().to_vec(),
            ],
            "exp" => [
                x.exp().into_vec(),
                heap.exp().as_slice().to_vec(),
                mixed.exp().as_slice().to_vec(),
            ],
            "tanh" => [
                x.tanh().into_vec(),
                heap.tanh().as_slice().to_vec(),
                mixed.tanh().as_slice().to_vec(),
            ],
            _ => [
                (-&x).into_vec(),
                (-&heap).as_slice().to_vec(),
                (-&mixed).as_slice().to_vec(),
            ],
        });
        for run in runs {
            for (path, out) in ["DynTensor", "heap", "mixed"].iter().zip(run) {
                if name == "gelu_tanh" {
                    // The library's formula is its own (`from_f64` constants); thread counts
                    // and paths must agree with each other, and closely with this one.
                    let first = x.gelu_tanh();
                    assert_eq!(as_bits(&out), as_bits(first.as_slice()), "{name} {path}");
                    let worst = out
                        .iter()
                        .zip(&x)
                        .map(|(a, &v)| (a - f(v)).abs())
                        .fold(0.0f32, f32::max);
                    assert!(worst < 1e-5, "{name} {path}: off by {worst}");
                } else {
                    assert_eq!(as_bits(&out), expect, "{name} {path}");
                }
            }
        }
    }
    let max_expect = as_bits(x.try_maximum(&r).unwrap().as_slice());
    for run in each_pool(|| {
        [
            heap.maximum(row).as_slice().to_vec(),
            mixed.maximum(row).as_slice().to_vec(),
        ]
    }) {
        for out in run {
            assert_eq!(as_bits(&out), max_expect);
        }
    }
    let sum_expect = as_bits((&x + &r).as_slice());
    for run in each_pool(|| {
        let (mut h, mut m) = (heap.clone(), mixed.clone());
        h += row;
        m += row;
        [h.as_slice().to_vec(), m.as_slice().to_vec()]
    }) {
        for out in run {
            assert_eq!(as_bits(&out), sum_expect);
        }
    }
}

/// Matrix products split into blocks of output rows: the same bits with 1, 2 and 4 threads,
/// through the blocked gemm (f32) and the loop nest (i64), batched, broadcast and transposed.
#[test]
fn matrix_products_do_not_depend_on_threads() {
    use shaped::rules::MatMulOptions;
    global_pool();
    let mut rng = Lcg(19);
    let cases: [(&[usize], &[usize], bool); 6] = [
        (&[512, 300], &[300, 257], false),
        (&[3, 200, 96], &[96, 130], false),
        (&[4, 1, 128, 64], &[3, 64, 100], false),
        (&[2, 700, 64], &[2, 96, 64], true),
        (&[3000, 40], &[40, 33], false),
        (&[1000], &[1000, 300], false),
    ];
    for (sa, sb, transpose_b) in cases {
        let (a, b) = (random(&mut rng, sa), random(&mut rng, sb));
        let options = MatMulOptions {
            transpose_b,
            ..MatMulOptions::default()
        };
        let runs = each_pool(|| bits(&a.matmul_with(&b, options).unwrap()));
        assert!(runs.windows(2).all(|w| w[0] == w[1]), "{sa:?} x {sb:?}");
        let (ai, bi) = (a.map(|&x| x as i64), b.map(|&x| x as i64));
        let ints = each_pool(|| ai.matmul_with(&bi, options).unwrap());
        assert!(ints.windows(2).all(|w| w[0] == w[1]), "{sa:?} x {sb:?}");
        // The integer product against a plain triple loop on the first output matrix.
        let k = *sa.last().unwrap();
        let n = *ints[0].shape().last().unwrap();
        let m = if sa.len() == 1 { 1 } else { sa[sa.len() - 2] };
        let at_b = |kk: usize, j: usize| match (transpose_b, sb.len()) {
            (true, r) => bi.as_slice()[j * sb[r - 1] + kk],
            (false, r) => bi.as_slice()[kk * sb[r - 1] + j],
        };
        for (i, j) in [(0, 0), (m - 1, n - 1), (m / 2, n / 3)] {
            let want: i64 = (0..k)
                .map(|kk| ai.as_slice()[i * k + kk] * at_b(kk, j))
                .sum();
            assert_eq!(
                ints[0].as_slice()[i * n + j],
                want,
                "{sa:?} x {sb:?} at {i}, {j}"
            );
        }
    }
}

/// A large product runs on several threads, a small one on one.
#[test]
fn large_products_are_split() {
    let _counting = counting_threads();
    global_pool();
    let a = DynTensor::from_elem([256, 128], Traced(1.0)).unwrap();
    let b = DynTensor::from_elem([128, 64], Traced(0.5)).unwrap();
    let four = pool(4);
    let seen =
        four.install(|| threads_seen(|| assert_eq!(a.matmul(&b).unwrap()[[7, 9]], Traced(64.0))));
    assert!(seen > 1);
    let alone = four.install(|| threads_seen(|| single_threaded(|| drop(a.matmul(&b).unwrap()))));
    assert_eq!(alone, 1);
    let small = DynTensor::from_elem([16, 16], Traced(1.0)).unwrap();
    assert_eq!(
        four.install(|| threads_seen(|| drop(small.matmul(&small).unwrap()))),
        1
    );
}
