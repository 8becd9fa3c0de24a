//! Blocked formats and runs in place in the binary primitive (O7, O8): any source, operand
//! and destination in a plain, channels-last or blocked format, against the row-major run of
//! the same values at every index; the padding never written; two block sizes on one dim an
//! error; format tags of any bytes parsed or refused, never a panic.
use super::super::{indices, Input};
use shaped::primitive::{reorder, Alg, Binary, Blocking, Eltwise, Layout, MemMut, MemRef, PostOp};
use shaped::ErrorKind;

const ALGS: [Alg; 6] = [
    Alg::Add,
    Alg::Sub,
    Alg::Mul,
    Alg::Div,
    Alg::Maximum,
    Alg::Ge,
];

fn layout(input: &mut Input<'_>, rank: usize) -> Layout {
    let tags = [
        "aBx4b", "aBx8b", "aBx16b", "ABx4a4b", "ABx2a8b", "Bacd8b", "Abx4a", "bacd",
    ];
    match input.below(12) {
        0 => Layout::RowMajor,
        1 => Layout::ChannelsLast,
        k if k < 10 => {
            let b = Blocking::from_tag(tags[k - 2]).unwrap();
            match b.with_rank(rank) {
                Some(_) => Layout::Blocked(b),
                None => Layout::RowMajor,
            }
        }
        _ => {
            // A tag of the fuzzer's own bytes: parsed or refused.
            let len = input.below(10);
            let tag: String = (0..len)
                .map(|_| char::from(b"aAbBcCdDx0124689"[input.below(16)]))
                .collect();
            match Blocking::from_tag(&tag) {
                Ok(b) => {
                    assert_eq!(Blocking::from_tag(&b.to_string()).unwrap(), b, "{tag}");
                    match b.with_rank(rank) {
                        Some(_) => Layout::Blocked(b),
                        None => Layout::RowMajor,
                    }
                }
                Err(e) => {
                    assert!(
                        matches!(e.kind(), ErrorKind::LayoutTag { .. }),
                        "{tag}: {e}"
                    );
                    Layout::RowMajor
                }
            }
        }
    }
}

/// The values of `plain` (row-major, `dims`) laid out in `layout`, the padding NaN-boxed.
fn lay_out(dims: &[usize], plain: &[f32], layout: Layout) -> Vec<f32> {
    let mut buf = vec![f32::from_bits(0x7fc0_beef); layout.buffer_len(dims).unwrap()];
    let src = MemRef::new(dims, plain, Layout::RowMajor).unwrap();
    reorder(&src, &mut MemMut::new(dims, &mut buf, layout).unwrap()).unwrap();
    buf
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let rank = 2 + input.below(3);
    let dst: Vec<usize> = (0..rank)
        .map(|_| match input.below(8) {
            0 => 0,
            7 => 9 + input.below(24),
            k => k.min(4),
        })
        .collect();
    let in_place = input.below(3) == 0;
    let mask = |input: &mut Input<'_>| -> Vec<usize> {
        dst.iter()
            .map(|&d| if input.below(3) == 0 { 1 } else { d })
            .collect()
    };
    let d0 = if in_place {
        dst.clone()
    } else {
        mask(&mut input)
    };
    let mut d1 = if input.below(2) == 0 {
        dst.clone()
    } else {
        mask(&mut input)
    };
    // Where src0 broadcasts, src1 must not (the two make the destination, O2).
    for ((b, &a), &d) in d1.iter_mut().zip(&d0).zip(&dst) {
        if a == 1 {
            *b = d;
        }
    }
    let od = mask(&mut input);
    // src0, src1, the operand, the destination (src0's format when in place).
    let mut layouts = [0; 4].map(|_| layout(&mut input, rank));
    if in_place {
        layouts[3] = layouts[0];
    }
    let value = |input: &mut Input<'_>, n: usize| -> Vec<f32> {
        (0..n).map(|_| input.below(33) as f32 * 0.5 - 8.0).collect()
    };
    let count = |d: &[usize]| d.iter().product::<usize>();
    let (x, y, z, old) = (
        value(&mut input, count(&d0)),
        value(&mut input, count(&d1)),
        value(&mut input, count(&od)),
        value(&mut input, count(&dst)),
    );
    // A broadcast would make src1 wider than src0: not something in place can take.
    let grows = d0.iter().zip(&d1).any(|(&a, &b)| a == 1 && b != 1);
    let alg = ALGS[input.below(ALGS.len())];
    let post = input.below(4);
    let scaled = input.below(4) == 0;

    let run = |ls: [Layout; 4]| -> (Result<(), shaped::Error>, Vec<f32>, Vec<f32>) {
        let (xb, yb, zb) = (
            lay_out(&d0, &x, ls[0]),
            lay_out(&d1, &y, ls[1]),
            lay_out(&od, &z, ls[2]),
        );
        // The destination starts with src0's values in place, `old` otherwise.
        let mut db = if in_place {
            xb.clone()
        } else {
            lay_out(&dst, &old, ls[3])
        };
        let before = db.clone();
        let operand = MemRef::new(&od, &zb, ls[2]).unwrap();
        let mut p = Binary::new(alg).runtime_checked();
        if scaled {
            p = p.scales(2.0, -0.5);
        }
        match post {
            0 => {}
            1 => p.push_post_op(PostOp::Eltwise(Eltwise::Relu)),
            2 => p.push_post_op(PostOp::Sum { scale: 0.5 }),
            _ => {
                p.push_post_op(PostOp::binary(Alg::Mul, &operand));
                p.push_post_op(PostOp::Eltwise(Eltwise::Abs));
            }
        }
        let src1 = MemRef::new(&d1, &yb, ls[1]).unwrap();
        let mut out = MemMut::new(&dst, &mut db, ls[3]).unwrap();
        let got = if in_place {
            p.run_in_place(&mut out, &src1)
        } else {
            let src0 = MemRef::new(&d0, &xb, ls[0]).unwrap();
            p.run_into(&src0, &src1, &mut out)
        };
        (got, db, before)
    };
    let plain = [Layout::RowMajor; 4];
    let (want_ok, want, _) = run(plain);
    let (got_ok, got, before) = run(layouts);
    if in_place && grows {
        assert!(want_ok.is_err() && got_ok.is_err());
        return;
    }
    assert!(
        want_ok.is_ok(),
        "{d0:?} {d1:?} {od:?} -> {dst:?}: {want_ok:?}"
    );
    // More than four split dims is a rank limit; nothing else may fail.
    if let Err(e) = got_ok {
        assert!(
            matches!(e.kind(), ErrorKind::RankLimit { .. }),
            "{layouts:?}: {e}"
        );
        return;
    }
    let mem = MemRef::new(&dst, &got, layouts[3]).unwrap();
    let mut written = vec![false; got.len()];
    for (row, index) in indices(&dst).iter().enumerate() {
        let at = mem.get(index).unwrap();
        written[(at as *const f32 as usize - got.as_ptr() as usize) / 4] = true;
        let (g, w) = (*at, want[row]);
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{layouts:?} {index:?}: {g} vs {w}"
        );
    }
    for (i, (&g, &b)) in got.iter().zip(&before).enumerate() {
        assert!(
            written[i] || g.to_bits() == b.to_bits(),
            "padding at {i} written"
        );
    }
}
