//! One test per rule of RULES.md on the runtime path: N1-N6, P1-P8, D1-D11, B1-B5, I1-I4 and
//! the decisions A1-A16. Shapes and error texts are asserted exactly.

use shaped::rules::partial::{broadcast_partial, Interval, PartialShape};
use shaped::rules::{broadcast_shapes_n, broadcast_to_shape, BroadcastToMode};
use shaped::{broadcast_shapes, AutoBroadcast, Error, ErrorKind};

const NONE: AutoBroadcast = AutoBroadcast::None;
const NUMPY: AutoBroadcast = AutoBroadcast::Numpy;
const BIDI: AutoBroadcast = AutoBroadcast::Bidirectional;

fn pdpd(axis: i64) -> AutoBroadcast {
    AutoBroadcast::Pdpd { axis }
}

fn ok(a: &[usize], b: &[usize], mode: AutoBroadcast) -> Vec<usize> {
    match broadcast_shapes(a, b, mode) {
        Ok(s) => s.to_vec(),
        Err(e) => panic!("{a:?} with {b:?} ({mode:?}) failed: {e}"),
    }
}

fn err(a: &[usize], b: &[usize], mode: AutoBroadcast) -> Error {
    match broadcast_shapes(a, b, mode) {
        Ok(s) => panic!("{a:?} with {b:?} ({mode:?}) gave {s}, expected an error"),
        Err(e) => e,
    }
}

#[test]
fn n1_none_needs_identical_shapes() {
    assert_eq!(ok(&[2, 3], &[2, 3], NONE), [2, 3]);
    assert_eq!(
        err(&[2, 3], &[2, 1], NONE).to_string(),
        "cannot broadcast [2, 3] with [2, 1] (none): axis 1 has 3 vs 1"
    );
    assert_eq!(
        err(&[3], &[1, 3], NONE).to_string(),
        "cannot broadcast [3] with [1, 3] (none): ranks 1 and 2 differ"
    );
}

#[test]
fn n2_rank0_and_rank_mismatch() {
    assert_eq!(ok(&[], &[], NONE), [0usize; 0]);
    assert_eq!(err(&[1], &[], NONE).kind(), ErrorKind::RankMismatch);
}

#[test]
fn n3_zero_size_dims_are_values() {
    assert_eq!(ok(&[0], &[0], NONE), [0]);
    assert_eq!(
        err(&[0], &[1], NONE).kind(),
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 0,
            rhs: 1
        }
    );
}

#[test]
fn n4_none_merges_intervals() {
    let iv = |lo, hi| Interval::new(lo, hi).unwrap();
    let a = PartialShape::new(&[
        Interval::fixed(2),
        iv(3, 5),
        Interval::DYNAMIC,
        iv(0, 5),
        Interval::at_least(6),
    ])
    .unwrap();
    let b = PartialShape::new(&[
        Interval::fixed(2),
        iv(3, 4),
        Interval::fixed(8),
        iv(2, 5),
        Interval::fixed(10),
    ])
    .unwrap();
    let out = broadcast_partial(&a, &b, NONE).unwrap();
    assert_eq!(out.to_string(), "{2,[3,4],8,[2,5],10}");
    let c = PartialShape::new(&[iv(1, 2)]).unwrap();
    let d = PartialShape::new(&[iv(3, 4)]).unwrap();
    assert_eq!(
        broadcast_partial(&c, &d, NONE).unwrap_err().to_string(),
        "cannot broadcast partial shapes of ranks 1 and 1 (none): axis 0 has [1,2] vs [3,4]"
    );
}

#[test]
fn n5_none_is_never_a_no_op() {
    // The trap of `broadcast_merge_into` with NONE: it must check, not pass everything.
    assert!(broadcast_shapes(&[2, 3], &[4, 5], NONE).is_err());
    assert!(broadcast_shapes(&[2, 3], &[3], NONE).is_err());
}

#[test]
fn n6_explicit_is_none() {
    assert_eq!(AutoBroadcast::EXPLICIT, AutoBroadcast::None);
    assert_eq!(
        broadcast_shapes(&[2, 3], &[1, 3], AutoBroadcast::EXPLICIT),
        broadcast_shapes(&[2, 3], &[1, 3], NONE)
    );
}

#[test]
fn p1_right_align_and_pad() {
    assert_eq!(ok(&[3], &[2, 3], NUMPY), [2, 3]);
    assert_eq!(ok(&[6, 5], &[2, 1, 5], NUMPY), [2, 6, 5]);
}

#[test]
fn p2_equal_or_one() {
    assert_eq!(ok(&[2, 1, 5], &[1, 4, 5], NUMPY), [2, 4, 5]);
    assert_eq!(
        err(&[3, 1, 5], &[4, 4, 5], NUMPY).to_string(),
        "cannot broadcast [3, 1, 5] with [4, 4, 5] (numpy): axis 0 has 3 vs 4"
    );
}

#[test]
fn p3_rank0() {
    assert_eq!(ok(&[], &[], NUMPY), [0usize; 0]);
    assert_eq!(ok(&[], &[2, 3, 5], NUMPY), [2, 3, 5]);
    assert_eq!(ok(&[2, 3, 5], &[], NUMPY), [2, 3, 5]);
}

#[test]
fn p4_symmetric() {
    for (a, b) in [
        (&[3][..], &[2, 3][..]),
        (&[6, 5], &[2, 1, 5]),
        (&[1, 5, 3], &[5, 2, 1, 3]),
    ] {
        assert_eq!(ok(a, b, NUMPY), ok(b, a, NUMPY));
    }
}

#[test]
fn p5_and_a1_one_against_zero_gives_zero() {
    assert_eq!(ok(&[1], &[0], NUMPY), [0]);
    assert_eq!(ok(&[0], &[1], NUMPY), [0]);
    assert_eq!(ok(&[1, 0], &[0, 1], NUMPY), [0, 0]);
    assert_eq!(
        err(&[0], &[3], NUMPY).kind(),
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 0,
            rhs: 3
        }
    );
}

#[test]
fn p6_output_rank_and_leading_ones() {
    assert_eq!(ok(&[1, 1], &[3], NUMPY), [1, 3]);
}

#[test]
fn p7_seed_examples() {
    assert_eq!(ok(&[8, 1, 6, 1], &[7, 1, 5], NUMPY), [8, 7, 6, 5]);
    assert_eq!(ok(&[3, 2, 1, 4], &[5, 4], NUMPY), [3, 2, 5, 4]);
    assert_eq!(ok(&[1, 5, 3], &[5, 2, 1, 3], NUMPY), [5, 2, 5, 3]);
    assert_eq!(
        err(&[3], &[2], NUMPY).to_string(),
        "cannot broadcast [3] with [2] (numpy): axis 0 has 3 vs 2"
    );
    assert_eq!(
        err(&[2, 3], &[2], NUMPY).kind(),
        ErrorKind::DimMismatch {
            axis: 1,
            lhs: 3,
            rhs: 2
        }
    );
    assert_eq!(
        err(&[1, 3, 4], &[2, 3, 3], NUMPY).kind(),
        ErrorKind::DimMismatch {
            axis: 2,
            lhs: 4,
            rhs: 3
        }
    );
}

#[test]
fn p8_n_ary_fold() {
    assert_eq!(broadcast_shapes_n(&[]).unwrap(), [0usize; 0]);
    assert_eq!(
        broadcast_shapes_n(&[&[1, 2], &[3, 1], &[3, 2]]).unwrap(),
        [3, 2]
    );
    assert_eq!(
        broadcast_shapes_n(&[&[3, 2], &[1, 2], &[3, 1]]).unwrap(),
        [3, 2],
        "order does not matter"
    );
    let e = broadcast_shapes_n(&[&[1, 2], &[3, 1], &[3, 2], &[10, 5]]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast [3, 2] with [10, 5] (numpy): axis 0 has 3 vs 10"
    );
}

#[test]
fn d1_and_a9_second_rank_not_larger_untrimmed() {
    assert_eq!(
        err(&[2, 3], &[1, 2, 3], pdpd(-1)).to_string(),
        "cannot broadcast [2, 3] with [1, 2, 3] (pdpd, axis -1): the second shape has the larger rank"
    );
    assert_eq!(
        err(&[10, 12], &[2, 2, 10, 12], pdpd(2)).kind(),
        ErrorKind::SecondRankTooLarge
    );
}

#[test]
fn d2_default_axis_and_negative_axes() {
    assert_eq!(ok(&[2, 3, 4, 5], &[4, 5], pdpd(-1)), [2, 3, 4, 5]);
    assert_eq!(AutoBroadcast::PDPD, pdpd(-1));
    assert_eq!(
        err(&[2, 3], &[3], pdpd(-2)).to_string(),
        "cannot broadcast [2, 3] with [3] (pdpd, axis -2): the axis must be -1 (the default) or >= 0"
    );
    assert_eq!(
        err(&[2, 3], &[3], pdpd(i64::MIN)).kind(),
        ErrorKind::NegativeAxis
    );
}

#[test]
fn d3_trailing_ones_trimmed_after_axis_resolution() {
    assert_eq!(ok(&[2, 3, 4, 5], &[3, 1], pdpd(1)), [2, 3, 4, 5]);
    // The trap: (4, 5, 1) resolves axis 1 from the untrimmed rank, then (4, 5) meets the 3.
    assert_eq!(
        err(&[2, 3, 4, 5], &[4, 5, 1], pdpd(-1)).to_string(),
        "cannot broadcast [2, 3, 4, 5] with [4, 5, 1] (pdpd, axis -1): axis 1 has 3 vs 4"
    );
    assert_eq!(ok(&[2, 3], &[1, 1], pdpd(-1)), [2, 3], "(1, 1) trims to []");
}

#[test]
fn d4_and_a4_fit_is_checked_on_the_trimmed_shape() {
    assert_eq!(ok(&[2, 3], &[3, 1], pdpd(1)), [2, 3]);
    assert_eq!(
        err(&[2, 3], &[3, 4], pdpd(1)).to_string(),
        "cannot broadcast [2, 3] with [3, 4] (pdpd, axis 1): the second shape does not fit at that axis (at most 0)"
    );
}

#[test]
fn d5_a7_a8_b_stretches_a_never_does() {
    assert_eq!(
        ok(&[2, 3, 4, 5], &[1, 3], pdpd(0)),
        [2, 3, 4, 5],
        "A7: interior 1 of B stretches"
    );
    assert_eq!(ok(&[2, 3, 4, 5], &[3, 1, 5], pdpd(1)), [2, 3, 4, 5]);
    assert_eq!(
        err(&[8, 1, 6, 1], &[7, 1, 5], pdpd(1)).to_string(),
        "cannot broadcast [8, 1, 6, 1] with [7, 1, 5] (pdpd, axis 1): axis 1 has 1 vs 7"
    );
}

#[test]
fn d6_output_is_always_a() {
    for (a, b, axis) in [
        (&[2, 3, 4, 5][..], &[5][..], -1),
        (&[2, 3, 4, 5], &[2, 3], 0),
        (&[4], &[], -1),
    ] {
        assert_eq!(ok(a, b, pdpd(axis)), a);
    }
}

#[test]
fn d7_and_a10_scalars() {
    assert_eq!(ok(&[2, 3, 4], &[], pdpd(-1)), [2, 3, 4]);
    assert_eq!(ok(&[], &[], pdpd(-1)), [0usize; 0]);
    assert_eq!(
        err(&[], &[1], pdpd(-1)).kind(),
        ErrorKind::SecondRankTooLarge
    );
}

#[test]
fn d8_and_a5_axis_up_to_rank_a_minus_rank_trimmed_b() {
    assert_eq!(ok(&[2, 3], &[], pdpd(2)), [2, 3]);
    assert_eq!(
        err(&[2, 3], &[], pdpd(3)).kind(),
        ErrorKind::AxisOutOfRange { max: 2 }
    );
    assert_eq!(
        ok(&[2, 3], &[1], pdpd(2)),
        [2, 3],
        "A5: (1) trims to [] and fits at axis 2"
    );
    assert_eq!(
        err(&[2, 3], &[3], pdpd(i64::MAX)).kind(),
        ErrorKind::AxisOutOfRange { max: 1 }
    );
}

#[test]
fn d9_values_follow_the_reshaped_b() {
    // B (3) at axis 1 of (2, 3, 2) is B reshaped to (1, 3, 1): checked on values in the
    // dynamic tensor tests; here the shape rule agrees with NUMPY on that reshape.
    assert_eq!(
        ok(&[2, 3, 2], &[3], pdpd(1)),
        ok(&[2, 3, 2], &[1, 3, 1], NUMPY)
    );
}

#[test]
fn d10_a2_a3_zero_size() {
    assert_eq!(ok(&[2, 0, 4], &[0, 4], pdpd(-1)), [2, 0, 4]);
    assert_eq!(
        ok(&[0, 3], &[1, 3], pdpd(0)),
        [0, 3],
        "A2: B's 1 onto A's 0"
    );
    assert_eq!(ok(&[2, 0], &[1], pdpd(-1)), [2, 0]);
    assert_eq!(
        err(&[1, 3], &[0, 3], pdpd(0)).kind(),
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 1,
            rhs: 0
        },
        "A3"
    );
}

#[test]
fn a6_equal_shapes_with_an_axis_that_does_not_fit() {
    assert_eq!(
        err(&[2, 3], &[2, 3], pdpd(1)).kind(),
        ErrorKind::AxisOutOfRange { max: 0 }
    );
}

#[test]
fn d11_pdpd_with_dynamic_dims() {
    let iv = |lo, hi| Interval::new(lo, hi).unwrap();
    let a = PartialShape::new(&[Interval::DYNAMIC, Interval::DYNAMIC]).unwrap();
    let b = PartialShape::new(&[iv(1, 3), iv(2, 7)]).unwrap();
    assert_eq!(
        broadcast_partial(&a, &b, pdpd(0)).unwrap().to_string(),
        "{-1,[2,7]}"
    );
    let s = PartialShape::fixed(&[2, 3]).unwrap();
    let t = PartialShape::fixed(&[4]).unwrap();
    assert!(
        broadcast_partial(&s, &t, pdpd(1)).is_err(),
        "static dims keep the D5 check"
    );
}

#[test]
fn i2_broadcast_merge_examples() {
    let iv = |lo, hi| Interval::new(lo, hi).unwrap();
    let f = Interval::fixed;
    assert_eq!(iv(1, 3).broadcast_merge(iv(2, 7)), Some(iv(2, 7)));
    assert_eq!(
        iv(1, 3).broadcast_merge(Interval::DYNAMIC),
        Some(Interval::DYNAMIC)
    );
    assert_eq!(iv(4, 8).broadcast_merge(f(1)), Some(iv(4, 8)));
    assert_eq!(Interval::DYNAMIC.broadcast_merge(f(2)), Some(f(2)));
    assert_eq!(Interval::at_least(6).broadcast_merge(f(8)), Some(f(8)));
    assert_eq!(f(1).broadcast_merge(f(0)), Some(f(0)));
    assert_eq!(f(3).broadcast_merge(f(2)), None);
}

#[test]
fn i3_dynamic_rank() {
    let r = PartialShape::fixed(&[2, 3]).unwrap();
    let d = PartialShape::DYNAMIC_RANK;
    assert_eq!(broadcast_partial(&r, &d, NUMPY).unwrap(), d);
    assert_eq!(broadcast_partial(&d, &r, pdpd(-1)).unwrap(), d);
    assert_eq!(
        broadcast_partial(&d, &r, NONE).unwrap(),
        r,
        "NONE merges ranks"
    );
}

#[test]
fn i4_unknown_target_values_with_known_length() {
    let data = PartialShape::fixed(&[8, 6, 4]).unwrap();
    let target = PartialShape::new(&[Interval::DYNAMIC; 4]).unwrap();
    assert_eq!(
        broadcast_partial(&data, &target, BIDI).unwrap().to_string(),
        "{-1,8,6,4}"
    );
}

#[test]
fn intervals_agree_with_static_rules_on_static_dims() {
    let dims = [0usize, 1, 2, 3];
    for mode in [NONE, NUMPY, BIDI, pdpd(-1), pdpd(0), pdpd(1)] {
        for a0 in dims {
            for a1 in dims {
                for b0 in dims {
                    let (a, b) = ([a0, a1], [b0]);
                    let fixed = broadcast_shapes(&a, &b, mode).map(|s| s.to_vec()).ok();
                    let partial = broadcast_partial(
                        &PartialShape::fixed(&a).unwrap(),
                        &PartialShape::fixed(&b).unwrap(),
                        mode,
                    )
                    .ok()
                    .map(|p| {
                        p.dims()
                            .unwrap()
                            .iter()
                            .map(|d| d.as_static().unwrap())
                            .collect::<Vec<_>>()
                    });
                    assert_eq!(fixed, partial, "{a:?} {b:?} {mode:?}");
                }
            }
        }
    }
}

#[test]
fn b1_b2_bidirectional_is_numpy_and_may_differ_from_the_target() {
    assert_eq!(ok(&[1, 4, 1], &[1, 4], BIDI), [1, 4, 4]);
    assert_eq!(ok(&[2, 3], &[3], BIDI), [2, 3]);
    assert_eq!(ok(&[3], &[], BIDI), [3]);
    assert_eq!(ok(&[5, 1, 1, 1], &[1, 2, 3, 4], BIDI), [5, 2, 3, 4]);
}

#[test]
fn b3_zero_size() {
    assert_eq!(ok(&[1], &[0], BIDI), [0]);
    assert_eq!(ok(&[2, 0], &[2, 1], BIDI), [2, 0]);
}

#[test]
fn b4_errors() {
    assert_eq!(
        err(&[4, 3, 2], &[8, 6, 4], BIDI).to_string(),
        "cannot broadcast [4, 3, 2] with [8, 6, 4] (bidirectional): axis 0 has 4 vs 8"
    );
    assert!(broadcast_shapes(&[1, 1, 2], &[2, 3], BIDI).is_err());
}

#[test]
fn b5_numpy_mode_is_one_directional() {
    let to = |d: &[usize], t: &[usize]| broadcast_to_shape(d, t, BroadcastToMode::Numpy);
    assert_eq!(to(&[3, 1], &[2, 3, 4]).unwrap(), [2, 3, 4]);
    assert_eq!(
        to(&[5, 1, 1, 1], &[1, 2, 3, 4]).unwrap_err().to_string(),
        "cannot broadcast [5, 1, 1, 1] with [1, 2, 3, 4] (broadcast_to numpy): axis 0 has 5 vs 1"
    );
    assert_eq!(
        to(&[2, 3], &[3]).unwrap_err().to_string(),
        "cannot broadcast [2, 3] with [3] (broadcast_to numpy): target_shape has smaller rank"
    );
    // A15: shapes np.broadcast_to rejects but Bidirectional accepts.
    assert!(to(&[3], &[1]).is_err());
    assert_eq!(
        broadcast_to_shape(&[3], &[1], BroadcastToMode::Bidirectional).unwrap(),
        [3]
    );
    assert_eq!(
        broadcast_to_shape(&[1, 2], &[2, 1], BroadcastToMode::Bidirectional).unwrap(),
        [2, 2]
    );
}

#[test]
fn b5_explicit_mode_with_axes_mapping() {
    let to = |d: &[usize], t: &[usize], axes: &[usize]| {
        broadcast_to_shape(d, t, BroadcastToMode::Explicit { axes_mapping: axes })
    };
    assert_eq!(to(&[3, 1], &[2, 3, 1], &[1, 2]).unwrap(), [2, 3, 1]);
    assert_eq!(
        to(&[3, 1], &[2, 3, 1], &[2, 1]).unwrap_err().to_string(),
        "cannot broadcast [3, 1] with [2, 3, 1] (broadcast_to explicit): axes_mapping is not increasing at entry 1"
    );
    assert_eq!(
        to(&[3, 1], &[2, 3, 1], &[1, 3]).unwrap_err().kind(),
        ErrorKind::AxesMappingRange { index: 1, axis: 3 }
    );
    assert_eq!(
        to(&[3, 2], &[2, 3, 3], &[1, 2]).unwrap_err().to_string(),
        "cannot broadcast [3, 2] with [2, 3, 3] (broadcast_to explicit): axis 2 has 2 vs 3"
    );
    assert_eq!(
        to(&[3, 1], &[2, 3, 1], &[0, 1, 2]).unwrap_err().kind(),
        ErrorKind::AxesMappingLength { len: 3, rank: 2 }
    );
    assert_eq!(
        to(&[], &[2, 3], &[1]).unwrap(),
        [2, 3],
        "a scalar with a mapping counts as rank 1"
    );
    assert_eq!(to(&[], &[2, 3], &[]).unwrap(), [2, 3]);
}

#[test]
fn b5_and_a12_pdpd_mode() {
    let to =
        |d: &[usize], t: &[usize], axis| broadcast_to_shape(d, t, BroadcastToMode::Pdpd { axis });
    assert_eq!(to(&[3, 1], &[2, 3, 6], 1).unwrap(), [2, 3, 6]);
    assert_eq!(
        to(&[3, 6], &[2, 3, 6], -1).unwrap(),
        [2, 3, 6],
        "A12: -1 resolves as in D2"
    );
    assert_eq!(
        to(&[3], &[2, 3], -2).unwrap_err().kind(),
        ErrorKind::NegativeAxis
    );
    assert_eq!(
        to(&[4], &[2, 3], 1).unwrap_err().to_string(),
        "cannot broadcast [4] with [2, 3] (broadcast_to pdpd, axis 1): axis 1 has 4 vs 3"
    );
    assert_eq!(
        to(&[2, 2, 3], &[2, 3], 0).unwrap_err().kind(),
        ErrorKind::TargetRankTooSmall
    );
}

#[test]
fn a11_axis_is_ignored_outside_pdpd() {
    // The axis only exists inside `AutoBroadcast::Pdpd`, so no other mode can apply one.
    assert_eq!(ok(&[2, 3], &[3], NUMPY), [2, 3]);
}

#[test]
fn a13_a14_a16_recorded_decisions() {
    // A13: NONE is strict equality (n5). A14: NUMPY right-aligns, never pads on the right.
    assert!(broadcast_shapes(&[3, 7, 5, 1], &[3, 7], NUMPY).is_err());
    assert_eq!(
        ok(&[3, 7, 5, 1], &[3, 7], pdpd(0)),
        [3, 7, 5, 1],
        "left alignment only through PDPD"
    );
    // A16 is a layout rule of the binary primitive (issue 5).
}

#[test]
fn rank_limit_is_an_error() {
    let long = vec![1usize; shaped::rules::MAX_RANK + 1];
    assert_eq!(
        err(&long, &[1], NUMPY).kind(),
        ErrorKind::RankLimit {
            max: shaped::rules::MAX_RANK
        }
    );
}

/// B6: the output axes each input was stretched along, for the elementwise modes.
#[test]
fn b6_stretched_axes_of_elementwise_modes() {
    use shaped::rules::stretched_axes;
    let axes = |a: &[usize], b: &[usize], mode| {
        let [x, y] = stretched_axes(a, b, mode).unwrap();
        (x.to_string(), y.to_string())
    };
    let s = |x: &str, y: &str| (x.to_string(), y.to_string());
    assert_eq!(
        axes(&[8, 1, 6, 1], &[7, 1, 5], NUMPY),
        s("{1, 3}", "{0, 2}")
    );
    assert_eq!(
        axes(&[8, 1, 6, 1], &[7, 1, 5], AutoBroadcast::Bidirectional),
        s("{1, 3}", "{0, 2}")
    );
    // A 1 against a 1 is not stretched; 1 against 0 is (the output dim is not 1).
    assert_eq!(axes(&[1, 3], &[1, 1], NUMPY), s("{}", "{1}"));
    assert_eq!(axes(&[1], &[0], NUMPY), s("{0}", "{}"));
    assert_eq!(axes(&[], &[2, 3], NUMPY), s("{0, 1}", "{}"));
    assert_eq!(axes(&[2, 3], &[2, 3], AutoBroadcast::None), s("{}", "{}"));
    // PDPD: A never stretches; B outside its place, and its 1s (D3's trimmed ones too).
    assert_eq!(axes(&[2, 3, 4, 5], &[3, 1], pdpd(1)), s("{}", "{0, 2, 3}"));
    assert_eq!(axes(&[2, 3, 4, 5], &[4, 5], pdpd(-1)), s("{}", "{0, 1}"));
    assert_eq!(axes(&[2, 3, 4, 5], &[], pdpd(-1)), s("{}", "{0, 1, 2, 3}"));
    // The shapes are checked as broadcast_shapes checks them.
    assert_eq!(
        stretched_axes(&[2, 3], &[4], NUMPY)
            .unwrap_err()
            .to_string(),
        broadcast_shapes(&[2, 3], &[4], NUMPY)
            .unwrap_err()
            .to_string()
    );
}

/// B6 and A18: the output axes the Broadcast op stretches its data along, in each mode.
#[test]
fn b6_and_a18_stretched_axes_of_the_broadcast_op() {
    use shaped::rules::stretched_axes_to;
    let axes = |d: &[usize], t: &[usize], mode| stretched_axes_to(d, t, mode).unwrap().to_string();
    assert_eq!(axes(&[1, 4], &[2, 3, 4], BroadcastToMode::Numpy), "{0, 1}");
    assert_eq!(axes(&[], &[2, 3], BroadcastToMode::Numpy), "{0, 1}");
    assert_eq!(axes(&[2, 3], &[2, 3], BroadcastToMode::Numpy), "{}");
    // Explicit: the unmapped axes (OpenVINO's answer), and A18: a mapped data 1 meeting a
    // target dim other than 1 is stretched too.
    let explicit = |m: &'static [usize]| BroadcastToMode::Explicit { axes_mapping: m };
    assert_eq!(axes(&[3], &[2, 3, 4], explicit(&[1])), "{0, 2}");
    assert_eq!(axes(&[3, 1], &[2, 3, 4], explicit(&[1, 2])), "{0, 2}");
    assert_eq!(axes(&[3, 1], &[2, 3, 1], explicit(&[1, 2])), "{0}");
    // A scalar with a one-entry mapping counts as [1].
    assert_eq!(axes(&[], &[2, 1], explicit(&[1])), "{0}");
    assert_eq!(
        axes(&[3], &[2, 3], BroadcastToMode::Pdpd { axis: 1 }),
        "{0}"
    );
    assert_eq!(
        axes(&[3, 1], &[2, 3, 6], BroadcastToMode::Pdpd { axis: 1 }),
        "{0, 2}"
    );
    // Bidirectional: the axes of the output, which may differ from the target.
    assert_eq!(
        axes(&[1, 4, 1], &[1, 4], BroadcastToMode::Bidirectional),
        "{2}"
    );
    assert_eq!(
        stretched_axes_to(&[5, 1, 1, 1], &[1, 2, 3, 4], BroadcastToMode::Numpy)
            .unwrap_err()
            .to_string(),
        "cannot broadcast [5, 1, 1, 1] with [1, 2, 3, 4] (broadcast_to numpy): axis 0 has 5 vs 1"
    );
}
