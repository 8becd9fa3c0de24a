//! The binary primitive with post-ops and layouts (row-major, channels-last, arbitrary
//! strides, `any`): results against an element-by-element reference; bad memory, shapes and
//! post-op operands are errors.
use super::super::{indices, numpy_dim, Input};
use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp, MAX_POST_OPS};

const ALGS: [Alg; 12] = [
    Alg::Add,
    Alg::Sub,
    Alg::Mul,
    Alg::Div,
    Alg::Maximum,
    Alg::Minimum,
    Alg::Ge,
    Alg::Gt,
    Alg::Le,
    Alg::Lt,
    Alg::Eq,
    Alg::Ne,
];

/// Dims related to `dst` (each 1 or dst's) or, now and then, anything.
fn dims_for(input: &mut Input<'_>, dst: &[usize]) -> Vec<usize> {
    if input.below(10) == 0 {
        return input.shape(4, false);
    }
    dst.iter()
        .map(|&d| if input.below(2) == 0 { 1 } else { d })
        .collect()
}

/// Strides for `dims`: row-major, channels-last, a random order with padding, or garbage.
fn strides_for(input: &mut Input<'_>, dims: &[usize]) -> (Vec<usize>, usize) {
    let mut order: Vec<usize> = (0..dims.len()).collect();
    let pad = input.below(3);
    match input.below(6) {
        0 => {}
        1 if dims.len() >= 3 => order[1..].rotate_left(1),
        5 => {
            let s: Vec<usize> = dims.iter().map(|_| input.below(5)).collect();
            return (s, input.below(60));
        }
        _ => {
            for i in (1..order.len()).rev() {
                order.swap(i, input.below(i + 1));
            }
        }
    }
    let mut strides = vec![0; dims.len()];
    let mut step = 1;
    for &axis in order.iter().rev() {
        strides[axis] = step;
        step *= dims[axis] + pad;
    }
    (strides, step)
}

fn read(data: &[f32], dims: &[usize], strides: &[usize], idx: &[usize]) -> f32 {
    let off: usize = dims
        .iter()
        .zip(strides)
        .zip(idx)
        .map(|((&d, &s), &i)| if d == 1 { 0 } else { i * s })
        .sum();
    data[off]
}

fn value(input: &mut Input<'_>) -> f32 {
    match input.below(20) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => -0.0,
        v => v as f32 * 0.5 - 4.0,
    }
}

enum Post {
    E(Eltwise),
    S(f32),
    B(Alg, usize),
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let dst: Vec<usize> = (0..input.below(5)).map(|_| input.below(4)).collect();
    let d0 = dims_for(&mut input, &dst);
    let d1 = dims_for(&mut input, &dst);
    let mut mems = Vec::new();
    for dims in [&d0, &d1] {
        let (s, span) = strides_for(&mut input, dims);
        let data: Vec<f32> = (0..span).map(|_| value(&mut input)).collect();
        mems.push((dims.clone(), s, data));
    }
    let alg = ALGS[input.below(12)];
    let mut posts = Vec::new();
    let mut operands = Vec::new();
    for _ in 0..input.below(MAX_POST_OPS + 3) {
        posts.push(match input.below(3) {
            0 => Post::E(match input.below(6) {
                0 => Eltwise::Relu,
                1 => Eltwise::LeakyRelu { slope: 0.5 },
                2 => Eltwise::Clip { lo: -1.0, hi: 2.0 },
                3 => Eltwise::Linear {
                    alpha: 2.0,
                    beta: -1.0,
                },
                4 => Eltwise::Abs,
                _ => Eltwise::Square,
            }),
            1 => Post::S(0.5),
            _ => {
                let dims = dims_for(&mut input, &dst);
                let (s, span) = strides_for(&mut input, &dims);
                let data: Vec<f32> = (0..span).map(|_| value(&mut input)).collect();
                operands.push((dims, s, data));
                Post::B(ALGS[input.below(12)], operands.len() - 1)
            }
        });
    }

    // Memory descriptors: accepted exactly when every offset is inside the buffer.
    let refs: Vec<_> = mems
        .iter()
        .chain(&operands)
        .map(|(d, s, v)| MemRef::with_strides(d, s, v))
        .collect();
    let Some(refs) = refs.into_iter().collect::<Result<Vec<_>, _>>().ok() else {
        return;
    };
    let (a, b, ops) = (refs[0], refs[1], &refs[2..]);

    let mut prim = Binary::new(alg).runtime_checked();
    for p in &posts {
        match *p {
            Post::E(e) => prim.push_post_op(e),
            Post::S(s) => prim.push_post_op(PostOp::Sum { scale: s }),
            Post::B(alg, k) => prim.push_post_op(PostOp::binary(alg, &ops[k])),
        }
    }

    // Expected: the O1-O4 rules, then the chain element by element.
    let shapes_ok = d0.len() == dst.len()
        && d1.len() == dst.len()
        && d0
            .iter()
            .zip(&d1)
            .zip(&dst)
            .all(|((&x, &y), &z)| numpy_dim(x, y) == Some(z));
    let operands_ok = operands.iter().all(|(d, _, _)| {
        d.len() == dst.len() && d.iter().zip(&dst).all(|(&x, &z)| x == 1 || x == z)
    });
    let count_ok = posts.len() <= MAX_POST_OPS;

    let n: usize = dst.iter().product();
    let old: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut buf = old.clone();
    let layout = [Layout::RowMajor, Layout::ChannelsLast, Layout::Any][input.below(3)];
    let mut dmem = MemMut::new(&dst, &mut buf, layout).unwrap();
    if layout == Layout::Any {
        // Old values are row-major, so ask for the same layout `any` resolves to only when
        // there is no sum post-op (the reference reads old values row-major).
        if posts.iter().any(|p| matches!(p, Post::S(_))) {
            return;
        }
    }
    let dst_strides = dmem.strides().to_vec();
    let got = prim.run_into(&a, &b, &mut dmem);
    assert_eq!(
        got.is_ok(),
        shapes_ok && operands_ok && count_ok,
        "{d0:?} {d1:?} -> {dst:?}: {got:?}"
    );
    if got.is_err() {
        return;
    }
    for idx in indices(&dst).iter() {
        let (m0, m1) = (&mems[0], &mems[1]);
        let mut v = alg.apply(
            read(&m0.2, &m0.0, &m0.1, idx),
            read(&m1.2, &m1.0, &m1.1, idx),
        );
        for p in &posts {
            v = match *p {
                Post::E(e) => e.apply(v),
                Post::S(s) => {
                    let off: usize = idx.iter().zip(&dst_strides).map(|(&i, &st)| i * st).sum();
                    v + s * old[off]
                }
                Post::B(alg, k) => {
                    let o = &operands[k];
                    alg.apply(v, read(&o.2, &o.0, &o.1, idx))
                }
            };
        }
        let g = *dmem.get(idx).unwrap();
        assert!(g == v || (g.is_nan() && v.is_nan()), "{idx:?}: {g} vs {v}");
    }
}
