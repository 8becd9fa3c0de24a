//! Blocked memory formats in the binary primitive (O7): every result equals the plain-layout
//! result reordered, for every post-op kind, on random shapes; padding is never written; the
//! `any` rule picks a blocked format (O5); the errors name what is wrong.

use crate::common;

use common::{indices, Lcg};
use shaped::primitive::{reorder, Alg, Binary, Blocking, Eltwise, Layout, MemMut, MemRef, PostOp};
use shaped::ErrorKind;

/// Plain data, its layout's buffer (the padding a sentinel), and the buffer filled by reorder.
fn lay_out(dims: &[usize], plain: &[f32], layout: Layout) -> Vec<f32> {
    let len = layout.buffer_len(dims).unwrap();
    let mut buf = vec![f32::from_bits(0x7fc0_dead); len];
    let src = MemRef::new(dims, plain, Layout::RowMajor).unwrap();
    reorder(&src, &mut MemMut::new(dims, &mut buf, layout).unwrap()).unwrap();
    buf
}

fn blocked(tag: &str) -> Layout {
    Layout::Blocked(Blocking::from_tag(tag).unwrap())
}

/// Formats for a rank: plain ones, oneDNN's channel blocks, double blocking, a permuted
/// blocked order (the GPU's `fs_b_yx_fsv32` at rank 4).
fn layouts(rank: usize) -> Vec<Layout> {
    let mut out = vec![Layout::RowMajor, Layout::ChannelsLast];
    if rank >= 2 {
        out.push(Layout::Blocked(Blocking::blocked::<1, 4>()));
        out.push(Layout::Blocked(Blocking::blocked::<1, 8>()));
        out.push(Layout::Blocked(Blocking::blocked::<1, 16>()));
        out.push(Layout::Blocked(Blocking::double::<4, 8>()));
    }
    if rank == 4 {
        out.push(Layout::Blocked(
            Blocking::from_gpu_format("fs_b_yx_fsv32").unwrap(),
        ));
    }
    out
}

fn canon(v: f32) -> u32 {
    if v.is_nan() {
        u32::MAX
    } else {
        v.to_bits()
    }
}

/// O7: for random shapes (rank 2 to 5, channel counts that are and are not multiples of the
/// blocks, broadcasting along any dim), random formats for src0, src1, the post-op operand and
/// the destination (two block sizes on one dim among them), and each post-op kind, the blocked run writes exactly what the row-major
/// run writes, at every index, and leaves the destination's padding as it was.
#[test]
fn o7_blocked_results_equal_plain_results_reordered() {
    let mut rng = Lcg(0x0B10_C4ED_5EED);
    let mut runs = 0;
    let mut padded_runs = 0;
    while runs < 400 {
        let rank = 2 + rng.below(4);
        let mut dst: Vec<usize> = (0..rank).map(|_| 1 + rng.below(3)).collect();
        dst[1] = 1 + rng.below(40);
        if rng.below(3) == 0 {
            dst[0] = 1 + rng.below(20);
        }
        let mask = |rng: &mut Lcg| -> Vec<usize> {
            dst.iter()
                .map(|&d| if rng.below(3) == 0 { 1 } else { d })
                .collect()
        };
        let (d0, d1) = match rng.below(4) {
            0 => (dst.clone(), mask(&mut rng)),
            1 => (mask(&mut rng), dst.clone()),
            2 => (dst.clone(), dst.clone()),
            _ => {
                // Both broadcast: src1 fills the dims src0 leaves at 1.
                let a = mask(&mut rng);
                let b = a
                    .iter()
                    .zip(&dst)
                    .map(|(&x, &d)| if x == 1 { d } else { 1 })
                    .collect();
                (a, b)
            }
        };
        let od = mask(&mut rng);
        let all = layouts(rank);
        let pick: Vec<Layout> = (0..4).map(|_| all[rng.below(all.len() as u64)]).collect();
        runs += 1;
        let value = |rng: &mut Lcg, dims: &[usize]| -> Vec<f32> {
            (0..dims.iter().product::<usize>())
                .map(|_| (rng.below(41) as f32 - 20.0) * 0.25)
                .collect()
        };
        let (a, b, o, old) = (
            value(&mut rng, &d0),
            value(&mut rng, &d1),
            value(&mut rng, &od),
            value(&mut rng, &dst),
        );
        let alg = [Alg::Add, Alg::Sub, Alg::Mul, Alg::Maximum, Alg::Div][rng.below(5)];
        let kind = rng.below(4);
        // The plain run.
        let run = |la: Layout, lb: Layout, lo: Layout, ld: Layout| -> (Vec<f32>, Vec<f32>) {
            let (ab, bb, ob) = (
                lay_out(&d0, &a, la),
                lay_out(&d1, &b, lb),
                lay_out(&od, &o, lo),
            );
            let mut db = lay_out(&dst, &old, ld);
            let before = db.clone();
            let operand = MemRef::new(&od, &ob, lo).unwrap();
            let mut p = Binary::new(alg).runtime_checked();
            match kind {
                0 => {}
                1 => p.push_post_op(PostOp::Eltwise(Eltwise::Relu)),
                2 => p.push_post_op(PostOp::Sum { scale: 0.5 }),
                _ => {
                    p.push_post_op(PostOp::binary(Alg::Mul, &operand));
                    p.push_post_op(PostOp::Eltwise(Eltwise::Square));
                }
            }
            let src0 = MemRef::new(&d0, &ab, la).unwrap();
            let src1 = MemRef::new(&d1, &bb, lb).unwrap();
            let mut out = MemMut::new(&dst, &mut db, ld).unwrap();
            p.run_into(&src0, &src1, &mut out).unwrap();
            (db, before)
        };
        let (want, _) = run(
            Layout::RowMajor,
            Layout::RowMajor,
            Layout::RowMajor,
            Layout::RowMajor,
        );
        let (got, before) = run(pick[0], pick[1], pick[2], pick[3]);
        let got_mem = MemRef::new(&dst, &got, pick[3]).unwrap();
        let mut written = vec![false; got.len()];
        for index in indices(&dst) {
            let row_major: usize = index.iter().zip(&dst).fold(0, |acc, (&i, &n)| acc * n + i);
            let at = got_mem.get(&index).unwrap();
            let offset = (at as *const f32 as usize - got.as_ptr() as usize) / 4;
            written[offset] = true;
            assert_eq!(
                canon(*at),
                canon(want[row_major]),
                "run {runs}: {pick:?} {d0:?} {d1:?} -> {dst:?} at {index:?}"
            );
        }
        // The padding keeps its sentinel, bit for bit.
        let mut padded = false;
        for (i, (&g, &b)) in got.iter().zip(&before).enumerate() {
            if !written[i] {
                padded = true;
                assert_eq!(
                    g.to_bits(),
                    b.to_bits(),
                    "run {runs}: padding at {i} written"
                );
            }
        }
        padded_runs += usize::from(padded);
    }
    // The random shapes did reach padded blocks.
    assert!(padded_runs > 20, "{padded_runs}");
}

/// O7 on the benchmark's shape: nChw16c data with a per-channel `[1, C, 1, 1]` bias, the
/// destination `any` (O5 picks nChw16c), at a channel count that is not a multiple of 16.
#[test]
fn o7_nchw16c_with_a_per_channel_source_and_an_any_destination() {
    let dims = [2, 20, 3, 3];
    let plain: Vec<f32> = (0..360).map(|i| i as f32).collect();
    let bias: Vec<f32> = (0..20).map(|c| 1000.0 * c as f32).collect();
    let nchw16c = blocked("aBcd16b");
    let x = lay_out(&dims, &plain, nchw16c);
    assert_eq!(x.len(), 2 * 32 * 9);
    let src0 = MemRef::new(dims, &x, nchw16c).unwrap();
    let src1 = MemRef::new([1, 20, 1, 1], &bias, Layout::RowMajor).unwrap();
    let prim = Binary::new(Alg::Add);
    let (layout, len) = prim.dst_for(&src0, &src1).unwrap();
    assert_eq!((layout, len), (nchw16c, 576));
    let mut buf = vec![0.0f32; len];
    let mut dst = MemMut::any(dims, &mut buf[..360]).unwrap();
    // An `any` destination sized for the plain count cannot hold the padded format.
    assert_eq!(
        prim.run_into(&src0, &src1, &mut dst)
            .unwrap_err()
            .to_string(),
        "shape [2, 20, 3, 3] needs 576 elements, but the buffer holds 360"
    );
    let mut dst = MemMut::new(dims, &mut buf, nchw16c).unwrap();
    prim.run_into(&src0, &src1, &mut dst).unwrap();
    for index in indices(&dims) {
        let i = ((index[0] * 20 + index[1]) * 3 + index[2]) * 3 + index[3];
        assert_eq!(
            *dst.get(&index).unwrap(),
            i as f32 + 1000.0 * index[1] as f32
        );
    }
    // n = 1, c = 17 lies in the second block of 16 at place 1: ((1 * 2 + 1) * 9 + 0) * 16 + 1.
    assert_eq!(buf[3 * 9 * 16 + 1], (180 + 17 * 9) as f32 + 17000.0);
    // The owned run allocates the padded count.
    let m = prim.run(&src0, &src1).unwrap();
    assert_eq!((m.layout(), m.as_slice().len()), (nchw16c, 576));
    assert_eq!(m.to_row_major().as_slice()[..3], [0.0, 1.0, 2.0]);
}

/// O5 with blocked formats: the destination takes the format of the source that is not
/// broadcast, src0's when neither is (A16), row-major when both are.
#[test]
fn o5_any_takes_a_blocked_format_of_the_bigger_source() {
    let (c16, c8) = (blocked("aBcd16b"), blocked("aBcd8b"));
    let big = vec![0.0f32; 2 * 16 * 4];
    let small = vec![0.0f32; 16];
    let full = MemRef::new([2, 16, 2, 2], &big, c16).unwrap();
    let full8 = MemRef::new([2, 16, 2, 2], &big, c8).unwrap();
    let bias = MemRef::new([1, 16, 1, 1], &small, c8).unwrap();
    let prim = Binary::<f32>::new(Alg::Add);
    assert_eq!(prim.dst_for(&full, &bias).unwrap().0, c16);
    assert_eq!(prim.dst_for(&bias, &full8).unwrap().0, c8);
    assert_eq!(prim.run(&full, &full).unwrap().layout(), c16);
    let row = MemRef::new([1, 16, 1, 1], &small, Layout::RowMajor).unwrap();
    let col = MemRef::new([2, 1, 2, 2], &big[..8], Layout::RowMajor).unwrap();
    assert_eq!(prim.dst_for(&row, &col).unwrap().0, Layout::RowMajor);
}

/// O7: a format's tag, its GPU name, its rank, and the errors of each.
#[test]
fn o7_formats_parse_from_onednn_tags_and_gpu_names() {
    let cases = [
        ("b_fs_yx_fsv16", "aBcd16b"),
        ("b_fs_zyx_fsv16", "aBcde16b"),
        ("b_fs_yx_fsv32", "aBcd32b"),
        ("fs_b_yx_fsv32", "Bacd32b"),
        ("bs_fs_yx_bsv16_fsv16", "ABcd16a16b"),
        ("bs_fs_zyx_bsv32_fsv16", "ABcde32a16b"),
    ];
    for (gpu, tag) in cases {
        let b = Blocking::from_gpu_format(gpu).unwrap();
        assert_eq!(b, Blocking::from_tag(tag).unwrap(), "{gpu}");
        assert_eq!(b.to_string(), tag);
    }
    assert_eq!(Blocking::blocked::<1, 8>().to_string(), "aBx8b");
    assert_eq!(Blocking::double::<16, 16>().to_string(), "ABx16a16b");
    // A tag without blocks in a plain order is that plain layout.
    let plain = vec![0.0f32; 24];
    for (tag, layout) in [("abcd", Layout::RowMajor), ("acdb", Layout::ChannelsLast)] {
        let m = MemRef::new([1, 2, 3, 4], &plain, blocked(tag)).unwrap();
        assert_eq!(m.layout(), layout, "{tag}");
    }
    // A permutation that is neither stays a format of its own.
    let m = MemRef::new([1, 2, 3, 4], &plain, blocked("bacd")).unwrap();
    assert_eq!(m.strides(), [12, 12, 4, 1]);
    for (bad, at) in [
        ("", 0),
        ("aBcd16c", 6),
        ("aBcd", 4),
        ("aBcd1b", 5),
        ("aacd", 1),
        ("aBcd16b16b", 9),
        ("aBcd99999b", 4),
        ("abcd16", 6),
        ("axbx", 3),
    ] {
        let e = Blocking::from_tag(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LayoutTag { at }, "{bad:?}");
    }
    assert_eq!(
        Blocking::from_gpu_format("b_fs_yx_fsvx")
            .unwrap_err()
            .to_string(),
        "bad layout tag: character 11 is not understood (O7)"
    );
    assert_eq!(
        Blocking::from_gpu_format("b_q_yx").unwrap_err().kind(),
        ErrorKind::LayoutTag { at: 2 }
    );
    // A rank-4 format on a rank-3 memory.
    assert_eq!(
        MemRef::new([2, 3, 4], &plain, blocked("aBcd8b"))
            .unwrap_err()
            .to_string(),
        "bad layout for shape [2, 3, 4]: the blocked format does not fit rank 3 (O7)"
    );
    assert_eq!(
        Layout::Blocked(Blocking::double::<4, 4>())
            .buffer_len([3])
            .unwrap_err()
            .to_string(),
        "bad layout for shape [3]: the blocked format does not fit rank 1 (O7)"
    );
    // The buffer must hold the padded count.
    assert_eq!(
        MemRef::new([1, 3, 2, 2], &plain[..12], blocked("aBcd8b"))
            .unwrap_err()
            .to_string(),
        "shape [1, 3, 2, 2] needs 32 elements, but the buffer holds 12"
    );
}

/// O7: memories may block one dim by different sizes (benchdnn's "different src0 and src1
/// tags"): `aBcd8b` with `aBcd16b`, a 4-block destination, sizes that do not divide each other
/// (6 and 4), channel counts past every block, in place too: bit for bit the plain run.
#[test]
fn o7_two_block_sizes_on_one_dim_give_the_plain_result() {
    let tags: &[[&str; 3]] = &[
        ["aBcd8b", "aBcd16b", "abcd"],
        ["aBcd16b", "aBcd8b", "aBcd4b"],
        ["aBcd16b", "abcd", "aBcd8b"],
        ["aBcd6b", "aBcd4b", "aBcd16b"],
        ["ABcd4a8b", "aBcd16b", "acdb"],
    ];
    let layout = |t: &str| match t {
        "abcd" => Layout::RowMajor,
        "acdb" => Layout::ChannelsLast,
        t => blocked(t),
    };
    // Back to row-major, to compare values (the padding is not part of the result).
    let back = |dims: [usize; 4], buf: &[f32], l: Layout| {
        let mut plain = vec![0.0f32; dims.iter().product()];
        reorder(
            &MemRef::new(dims, buf, l).unwrap(),
            &mut MemMut::new(dims, &mut plain, Layout::RowMajor).unwrap(),
        )
        .unwrap();
        plain.iter().map(|&x| canon(x)).collect::<Vec<_>>()
    };
    let mut rng = Lcg(0x02B1_0C45);
    for &[t0, t1, td] in tags {
        for channels in [1, 5, 8, 16, 20, 37, 48] {
            for n in [1, 3] {
                let dims = [n, channels, 2, 3];
                let count: usize = dims.iter().product();
                let mut value = || -> Vec<f32> {
                    (0..count)
                        .map(|_| rng.below(1 << 20) as f32 * 0.125 - 3.0)
                        .collect()
                };
                let (a, b) = (value(), value());
                let (ab, bb) = (
                    lay_out(&dims, &a, layout(t0)),
                    lay_out(&dims, &b, layout(t1)),
                );
                let prim = Binary::new(Alg::Mul).post_op(PostOp::Eltwise(Eltwise::Relu));
                let mut want = vec![0.0f32; count];
                prim.run_into(
                    &MemRef::new(dims, &a, Layout::RowMajor).unwrap(),
                    &MemRef::new(dims, &b, Layout::RowMajor).unwrap(),
                    &mut MemMut::new(dims, &mut want, Layout::RowMajor).unwrap(),
                )
                .unwrap();
                let want = back(dims, &want, Layout::RowMajor);
                let mut got = lay_out(&dims, &vec![f32::NAN; count], layout(td));
                prim.run_into(
                    &MemRef::new(dims, &ab, layout(t0)).unwrap(),
                    &MemRef::new(dims, &bb, layout(t1)).unwrap(),
                    &mut MemMut::new(dims, &mut got, layout(td)).unwrap(),
                )
                .unwrap();
                assert_eq!(
                    back(dims, &got, layout(td)),
                    want,
                    "{t0} {t1} -> {td}, {dims:?}"
                );
                // In place over src0's format.
                let mut inplace = ab.clone();
                prim.run_in_place(
                    &mut MemMut::new(dims, &mut inplace, layout(t0)).unwrap(),
                    &MemRef::new(dims, &bb, layout(t1)).unwrap(),
                )
                .unwrap();
                assert_eq!(
                    back(dims, &inplace, layout(t0)),
                    want,
                    "in place {t0} {t1}, {dims:?}"
                );
            }
        }
    }
    // A broadcast memory's block does not cut the dim: the 16-block source is read at
    // channel 0 only.
    let (c16, c8) = (blocked("aBcd16b"), blocked("aBcd8b"));
    let x = vec![0.0f32; 32 * 4];
    let mut buf = vec![0.0f32; 32 * 4];
    let mut dst = MemMut::new([1, 32, 2, 2], &mut buf, c8).unwrap();
    let one = vec![2.0f32; 16 * 4];
    let src1 = MemRef::new([1, 1, 2, 2], &one, c16).unwrap();
    let src0 = MemRef::new([1, 32, 2, 2], &x, c8).unwrap();
    Binary::new(Alg::Add)
        .run_into(&src0, &src1, &mut dst)
        .unwrap();
    assert!(buf.iter().all(|&v| v == 2.0));
}

#[test]
fn o7_per_channel_inputs_over_short_rows_match_a_hand_loop() {
    for (c, layout) in [(48, Layout::ChannelsLast), (32, blocked("aBcd16b"))] {
        let dims = [2, c, 40, 40];
        let n: usize = dims.iter().product();
        let plain: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 * 0.125 - 60.0)
            .collect();
        let bias: Vec<f32> = (0..c).map(|i| i as f32 - 20.0).collect();
        let scale: Vec<f32> = (0..c).map(|i| 0.5 + (i % 5) as f32).collect();
        let old: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
        let x = lay_out(&dims, &plain, layout);
        let src0 = MemRef::new(dims, &x, layout).unwrap();
        let b = MemRef::new([1, c, 1, 1], &bias, Layout::RowMajor).unwrap();
        let s = MemRef::new([1, c, 1, 1], &scale, Layout::RowMajor).unwrap();
        let mut buf = lay_out(&dims, &old, layout);
        let mut dst = MemMut::new(dims, &mut buf, layout).unwrap();
        let prim = Binary::new(Alg::Sub)
            .scales(2.0, 0.5)
            .post_op(Eltwise::Relu)
            .post_op(PostOp::binary(Alg::Mul, &s))
            .post_op(PostOp::Sum { scale: 0.25 });
        prim.run_into(&src0, &b, &mut dst).unwrap();
        // Three per-channel inputs: src1, and two operands.
        let mut buf3 = lay_out(&dims, &old, layout);
        let mut dst3 = MemMut::new(dims, &mut buf3, layout).unwrap();
        let prim3 = Binary::new(Alg::Sub)
            .scales(2.0, 0.5)
            .post_op(Eltwise::Relu)
            .post_op(PostOp::binary(Alg::Mul, &s))
            .post_op(PostOp::binary(Alg::Add, &b))
            .post_op(PostOp::Sum { scale: 0.25 });
        prim3.run_into(&src0, &b, &mut dst3).unwrap();
        for index in indices(&dims) {
            let i = ((index[0] * c + index[1]) * 40 + index[2]) * 40 + index[3];
            let ch = index[1];
            let v = (2.0 * plain[i] - 0.5 * bias[ch]).max(0.0) * scale[ch];
            assert_eq!(*dst.get(&index).unwrap(), v + 0.25 * old[i], "{index:?}");
            let v3 = v + bias[ch];
            assert_eq!(*dst3.get(&index).unwrap(), v3 + 0.25 * old[i], "{index:?}");
        }
    }
}

/// Hostile input is an error value: counts that overflow once padded, tags of any bytes.
#[test]
fn o7_hostile_formats_and_sizes_are_errors_not_panics() {
    let c16 = Layout::Blocked(Blocking::blocked::<1, 16>());
    // 17 channels pad to 32: a count that fits plain overflows blocked.
    // (buffer_len counts bytes as for 1-byte elements, at most isize::MAX.)
    let n = isize::MAX as usize / 20;
    assert_eq!(Layout::RowMajor.buffer_len([1, 17, n]).unwrap(), 17 * n);
    let e = c16.buffer_len([1, 17, n]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    assert_eq!(
        c16.buffer_len([usize::MAX, 2]).unwrap_err().kind(),
        ErrorKind::Overflow
    );
    assert_eq!(c16.buffer_len([3, 0, 5]).unwrap(), 0);
    // Every short byte string parses or is refused, never panics.
    let alphabet = b"aAbBcCxX0169_fsvbyz";
    let mut rng = Lcg(7);
    for _ in 0..20_000 {
        let len = rng.below(14);
        let tag: String = (0..len)
            .map(|_| char::from(alphabet[rng.below(alphabet.len() as u64)]))
            .collect();
        if let Ok(b) = Blocking::from_tag(&tag) {
            // What parses prints back as a tag that parses to the same format.
            assert_eq!(Blocking::from_tag(&b.to_string()).unwrap(), b, "{tag}");
        }
        let _ = Blocking::from_gpu_format(&tag);
    }
    assert!(Blocking::from_gpu_format(&"b_".repeat(100)).is_err());
    assert!(Blocking::from_tag(&"a".repeat(100)).is_err());
}

/// O7 with static shapes: blocked memories given their static shape (`into_static`) run with
/// every shape rule checked at compile time (`apply_mem`, `apply_mem_in_place`; the compile
/// errors are in ui-tests), the same values as the runtime path, each memory its own data type.
#[test]
fn o7_static_shapes_over_blocked_memory_agree_with_the_runtime_path() {
    use shaped::{Shape, Tensor};
    type S = Shape![2, 6, 3, 3];
    let dims = [2, 6, 3, 3];
    let nchw4c = blocked("aBcd4b");
    let plain: Vec<f32> = (0..108).map(|i| i as f32 * 0.5 - 20.0).collect();
    let x = lay_out(&dims, &plain, nchw4c);
    let bias = Tensor::<f32, Shape![1, 6, 1, 1]>::from_fn(|i| i[1] as f32 * 10.0);
    let scale = Tensor::<f32, Shape![2, 1, 1, 1]>::from_fn(|i| 1.0 + i[0] as f32);
    let prim = Binary::new(Alg::Add)
        .post_op(Eltwise::Relu)
        .post_op(PostOp::binary(Alg::Mul, &scale));
    // Runtime.
    let mut want = vec![0.0f32; x.len()];
    let src0 = MemRef::new(dims, &x, nchw4c).unwrap();
    prim.run_into(
        &src0,
        &bias,
        &mut MemMut::new(dims, &mut want, nchw4c).unwrap(),
    )
    .unwrap();
    // Static.
    let mut got = vec![0.0f32; x.len()];
    let s0 = src0.into_static::<S>().unwrap();
    let mut d = MemMut::new(dims, &mut got, nchw4c)
        .unwrap()
        .into_static::<S>()
        .unwrap();
    prim.apply_mem(&s0, &bias, &mut d).unwrap();
    assert_eq!(got, want);
    let d = MemRef::new(dims, &got, nchw4c).unwrap();
    assert_eq!(d.get(&[1, 5, 2, 2]), Some(&((plain[107] + 50.0) * 2.0)));
    // In place, static.
    let mut inplace = x.clone();
    let mut m = MemMut::new(dims, &mut inplace, nchw4c)
        .unwrap()
        .into_static::<S>()
        .unwrap();
    prim.apply_mem_in_place(&mut m, &bias).unwrap();
    // The padding differs (never written): compare the values.
    for index in indices(&dims) {
        assert_eq!(m.inner().get(&index), d.get(&index), "{index:?}");
    }
    // Other data types: an i8 static tensor and a u8 blocked destination, computed in f32.
    let small = Tensor::<i8, S>::from_fn(|i| (i[1] as i8 - 3) * 10 + i[3] as i8);
    let mut bytes = vec![0u8; x.len()];
    let mut d8 = MemMut::new(dims, &mut bytes, nchw4c)
        .unwrap()
        .into_static::<S>()
        .unwrap();
    Binary::<f32>::new(Alg::Add)
        .scales(0.5, 1.0)
        .apply_mem(&small, &bias, &mut d8)
        .unwrap();
    // Channel 1, w 2: 0.5 * (-20 + 2) + 10 = 1; channel 0: 0.5 * -30 + 0 saturates to 0.
    assert_eq!(d8.inner().get(&[0, 1, 0, 2]), Some(&1));
    assert_eq!(d8.inner().get(&[0, 0, 0, 0]), Some(&0));
    // A memory whose dims are not the static shape.
    let e = MemRef::new(dims, &x, nchw4c)
        .unwrap()
        .into_static::<Shape![2, 6, 3, 4]>()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ShapeMismatch);
    assert_eq!(
        e.to_string(),
        "shape [2, 6, 3, 3] is not the static shape [2, 6, 3, 4]"
    );
}

/// O7 on work large enough to be split across threads (feature `rayon`): nChw16c with 20
/// channels, so each image holds a whole block and a partial one; both pieces (the partial
/// one starting past the first block) are above the threads' threshold of 2^17 elements.
#[test]
fn o7_large_padded_runs_agree_with_the_plain_run() {
    let dims = [8, 20, 72, 72];
    let n: usize = dims.iter().product();
    let plain: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1013) as f32 * 0.25 - 100.0)
        .collect();
    let bias: Vec<f32> = (0..20).map(|c| c as f32 * 3.0 - 30.0).collect();
    let nchw16c = blocked("aBcd16b");
    let x = lay_out(&dims, &plain, nchw16c);
    let b = MemRef::new([1, 20, 1, 1], &bias, Layout::RowMajor).unwrap();
    let prim = Binary::new(Alg::Add).post_op(Eltwise::Relu);
    let want = prim
        .run(&MemRef::new(dims, &plain, Layout::RowMajor).unwrap(), &b)
        .unwrap();
    let got = prim
        .run(&MemRef::new(dims, &x, nchw16c).unwrap(), &b)
        .unwrap();
    assert_eq!(got.layout(), nchw16c);
    let mut inplace = x.clone();
    prim.run_in_place(&mut MemMut::new(dims, &mut inplace, nchw16c).unwrap(), &b)
        .unwrap();
    let inplace = MemRef::new(dims, &inplace, nchw16c).unwrap();
    for index in indices(&dims) {
        let w = want.get(&index).unwrap();
        assert_eq!(got.get(&index).unwrap(), w, "{index:?}");
        assert_eq!(inplace.get(&index).unwrap(), w, "{index:?}");
    }
}
