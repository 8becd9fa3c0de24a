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

/// An element that records the threads its additions ran on: the proof that work is split.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct Traced(f32);

static THREADS: Mutex<Option<HashSet<std::thread::ThreadId>>> = Mutex::new(None);

fn record() {
    let mut seen = THREADS.lock().unwrap();
    seen.get_or_insert_with(HashSet::new)
        .insert(std::thread::current().id());
}

/// How many threads ran `f`'s additions. One call at a time: tests run in parallel.
fn threads_seen(f: impl FnOnce()) -> usize {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    *THREADS.lock().unwrap() = Some(HashSet::new());
    f();
    THREADS.lock().unwrap().as_ref().map_or(0, HashSet::len)
}

impl Element for Traced {
    const ZERO: Self = Traced(0.0);
    const ONE: Self = Traced(1.0);
    const INTEGER: bool = false;
    const HAS_POW: bool = false;
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
    let big = DynTensor::from_elem([512, 512], Traced(1.0)).unwrap();
    let row = DynTensor::from_elem([512], Traced(2.0)).unwrap();
    let four = pool(4);
    assert!(four.install(|| threads_seen(|| drop(&big + &row))) > 1);
    assert!(four.install(|| threads_seen(|| drop(big.sum(&[0, 1], false).unwrap()))) > 1);
    assert!(four.install(|| threads_seen(|| drop(big.sum(&[0], false).unwrap()))) > 1);
    // Products fold along the axis: split over rows, or over the columns of a single block.
    assert!(four.install(|| threads_seen(|| drop(big.prod(&[1], false).unwrap()))) > 1);
    assert!(four.install(|| threads_seen(|| drop(big.prod(&[0], false).unwrap()))) > 1);
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
    assert!(threads_seen(|| drop(big.prod(&[0], false).unwrap())) > 1);
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
