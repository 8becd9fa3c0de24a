//! Partial shapes beyond the elementwise modes (RULES.md section 6): dim symbols (I5), the
//! Broadcast op's modes on intervals, dynamic ranks and unknown targets (I6-I8, A19), and the
//! stretched axes on partial shapes (I9). Cases follow OpenVINO's own type_prop tests of the
//! Broadcast op where OpenVINO and shaped agree.

use shaped::rules::partial::{
    broadcast_explicit_partial, broadcast_partial, broadcast_to_partial, stretched_axes_partial,
    stretched_axes_to_partial, Interval, PartialMapping, PartialShape, Symbol,
};
use shaped::rules::{broadcast_to_shape, stretched_axes_to, BroadcastToMode};
use shaped::{AutoBroadcast, ErrorKind};

const DYN: Interval = Interval::DYNAMIC;
const NUMPY: BroadcastToMode<'static> = BroadcastToMode::Numpy;

fn f(n: usize) -> Interval {
    Interval::fixed(n)
}

fn iv(lo: usize, hi: usize) -> Interval {
    Interval::new(lo, hi).unwrap()
}

fn shape(dims: &[Interval]) -> PartialShape {
    PartialShape::new(dims).unwrap()
}

fn sym(id: u32) -> Option<Symbol> {
    Symbol::new(id)
}

fn with(dims: &[Interval], symbols: &[Option<Symbol>]) -> PartialShape {
    shape(dims).with_symbols(symbols).unwrap()
}

fn to(data: &PartialShape, target: &PartialShape, mode: BroadcastToMode<'_>) -> String {
    broadcast_to_partial(data, target, mode)
        .unwrap()
        .to_string()
}

/// I5: symbols follow each merge, and equal symbols are equal dims.
#[test]
fn i5_symbols_follow_broadcasting() {
    // The side that cannot be 1 keeps its symbol; a static 1 passes none on.
    let a = with(&[DYN, f(3)], &[sym(1), None]);
    let b = with(&[f(1), f(3)], &[sym(9), None]);
    let out = broadcast_partial(&a, &b, AutoBroadcast::Numpy).unwrap();
    assert_eq!(out.to_string(), "{-1#1,3}");
    // Two dims of one symbol never mismatch: their intersection, with the symbol, where
    // the plain intervals would broadcast to the wider one.
    let x = with(&[iv(1, 3)], &[sym(4)]);
    let y = with(&[iv(2, 8)], &[sym(4)]);
    assert_eq!(
        broadcast_partial(&x, &y, AutoBroadcast::Numpy)
            .unwrap()
            .to_string(),
        "{[2,3]#4}"
    );
    assert_eq!(
        broadcast_partial(
            &shape(&[iv(1, 3)]),
            &shape(&[iv(2, 8)]),
            AutoBroadcast::Numpy
        )
        .unwrap()
        .to_string(),
        "{[2,8]}"
    );
    // One symbol on intervals that do not meet: the inputs contradict each other.
    let far = with(&[iv(5, 8)], &[sym(4)]);
    let e = broadcast_partial(&x, &far, AutoBroadcast::Numpy).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::IntervalMismatch {
            axis: 0,
            lhs: iv(1, 3),
            rhs: iv(5, 8)
        }
    );
    // Two dims that may each be 1: the hull keeps a symbol only when they agree or one has
    // none.
    let p = with(&[DYN], &[sym(1)]);
    let q = with(&[DYN], &[sym(2)]);
    let none = shape(&[DYN]);
    assert_eq!(
        broadcast_partial(&p, &q, AutoBroadcast::Numpy)
            .unwrap()
            .to_string(),
        "{-1}"
    );
    assert_eq!(
        broadcast_partial(&p, &none, AutoBroadcast::Numpy)
            .unwrap()
            .to_string(),
        "{-1#1}"
    );
    assert_eq!(
        broadcast_partial(&none, &q, AutoBroadcast::Numpy)
            .unwrap()
            .to_string(),
        "{-1#2}"
    );
    // Neither can be 1: the intersection, and the two symbols are one from then on: the
    // first input's is kept (OpenVINO's `Dimension::merge`), NONE alike.
    let r = with(&[iv(2, 9)], &[sym(1)]);
    let s = with(&[iv(4, 12)], &[sym(2)]);
    assert_eq!(
        broadcast_partial(&r, &s, AutoBroadcast::Numpy)
            .unwrap()
            .to_string(),
        "{[4,9]#1}"
    );
    assert_eq!(
        broadcast_partial(&s, &r, AutoBroadcast::Numpy)
            .unwrap()
            .to_string(),
        "{[4,9]#2}"
    );
    assert_eq!(
        broadcast_partial(&r, &s, AutoBroadcast::None)
            .unwrap()
            .to_string(),
        "{[4,9]#1}"
    );
    assert_eq!(
        broadcast_partial(&shape(&[iv(4, 12)]), &s, AutoBroadcast::None)
            .unwrap()
            .to_string(),
        "{[4,12]#2}"
    );
    assert_eq!(
        broadcast_partial(&r, &shape(&[iv(4, 12)]), AutoBroadcast::None)
            .unwrap()
            .to_string(),
        "{[4,9]#1}"
    );
    // Under PDPD, A keeps its dims and symbols where the pair is static.
    let a = with(&[f(2), DYN, f(5)], &[sym(3), sym(4), None]);
    let b = with(&[DYN, f(1)], &[sym(4), None]);
    assert_eq!(
        broadcast_partial(&a, &b, AutoBroadcast::Pdpd { axis: 1 })
            .unwrap()
            .to_string(),
        "{2#3,-1#4,5}"
    );
    // Symbols are per dim: a list of another length, or on a dynamic rank, is refused.
    assert!(shape(&[DYN]).with_symbols(&[None, None]).is_none());
    assert!(PartialShape::DYNAMIC_RANK.with_symbols(&[]).is_none());
    assert_eq!(Symbol::new(0), None);
    assert_eq!(sym(7).map(Symbol::id), Some(7));
}

/// I5 through chains: a transformer-style graph, batch and sequence symbols carried through
/// three broadcasts, a residual add of two tensors of the same symbols, and a broadcast of
/// two unknown dims of one symbol that cannot mismatch.
#[test]
fn i5_symbols_through_chains_of_broadcasts() {
    let (batch, seq) = (sym(1), sym(2));
    let x = with(&[DYN, DYN, f(64)], &[batch, seq, None]);
    let bias = PartialShape::fixed(&[64]).unwrap();
    let mask = with(&[DYN, f(1), DYN], &[batch, None, seq]);
    let scale = with(&[f(1), DYN, f(1)], &[None, seq, None]);
    let step1 = broadcast_partial(&x, &bias, AutoBroadcast::Numpy).unwrap();
    assert_eq!(step1.to_string(), "{-1#1,-1#2,64}");
    let step2 = broadcast_partial(&step1, &scale, AutoBroadcast::Numpy).unwrap();
    assert_eq!(step2.to_string(), "{-1#1,-1#2,64}");
    // The residual: the same symbols on both sides, so the result is known to be x's shape.
    let step3 = broadcast_partial(&step2, &x, AutoBroadcast::Numpy).unwrap();
    assert_eq!(step3, step2);
    // Scores [batch, seq, seq] against the mask [batch, 1, seq].
    let scores = with(&[DYN, DYN, DYN], &[batch, seq, seq]);
    let masked = broadcast_partial(&scores, &mask, AutoBroadcast::Numpy).unwrap();
    assert_eq!(masked.to_string(), "{-1#1,-1#2,-1#2}");
    // Bounds learned on one dim meet those of another dim of the same symbol.
    let a = with(&[iv(1, 64)], &[seq]);
    let b = with(&[iv(16, 512)], &[seq]);
    let c = broadcast_partial(&a, &b, AutoBroadcast::Numpy).unwrap();
    assert_eq!(c.to_string(), "{[16,64]#2}");
    // And then onto a target: numpy keeps the target's symbols (I6).
    let target = with(&[DYN, DYN], &[batch, seq]);
    assert_eq!(to(&c, &target, NUMPY), "{-1#1,-1#2}");
}

/// I6: the `numpy` mode on partial shapes (OpenVINO's `broadcast_numpy_*` type_prop cases).
#[test]
fn i6_numpy_mode_on_partial_shapes() {
    let target = PartialShape::fixed(&[1, 2, 3, 4]).unwrap();
    // Partly dynamic data: the result is the target.
    for data in [
        shape(&[f(2), f(3), DYN]),
        shape(&[DYN, f(3), DYN]),
        shape(&[DYN, DYN, DYN]),
        shape(&[iv(1, 9), f(3), f(4)]),
    ] {
        assert_eq!(to(&data, &target, NUMPY), "{1,2,3,4}", "{data}");
    }
    // A dynamic data rank, a dynamic target rank, a target of unknown values.
    let rank3 = PartialShape::fixed(&[1, 2, 3]).unwrap();
    assert_eq!(to(&PartialShape::DYNAMIC_RANK, &rank3, NUMPY), "{1,2,3}");
    assert_eq!(to(&rank3, &PartialShape::DYNAMIC_RANK, NUMPY), "[...]");
    let unknown = PartialShape::dynamic(4).unwrap();
    assert_eq!(to(&shape(&[f(3), DYN]), &unknown, NUMPY), "{-1,-1,-1,-1}");
    // Errors: a static pair that does not fit, and a target rank that is too small.
    let e = broadcast_to_partial(&shape(&[DYN, f(999), f(3), f(4)]), &target, NUMPY).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::IntervalMismatch {
            axis: 1,
            lhs: f(999),
            rhs: f(2)
        }
    );
    assert_eq!(
        e.to_string(),
        "cannot broadcast partial shapes of ranks 4 and 4 (broadcast_to numpy): axis 1 has 999 vs 2"
    );
    let e = broadcast_to_partial(&shape(&[f(5), DYN, DYN, DYN]), &target, NUMPY).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::IntervalMismatch {
            axis: 0,
            lhs: f(5),
            rhs: f(1)
        }
    );
    let e = broadcast_to_partial(&shape(&[DYN, DYN, DYN]), &unknown_of(2), NUMPY).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TargetRankTooSmall);
    // Dims not both static are not compared (OpenVINO's rule): [6, 9] against 4 passes.
    assert_eq!(
        to(
            &shape(&[iv(6, 9)]),
            &PartialShape::fixed(&[4]).unwrap(),
            NUMPY
        ),
        "{4}"
    );
    // On static shapes, the static rule's answer.
    for (d, t) in [
        (&[3, 1][..], &[2, 3, 4][..]),
        (&[1][..], &[0][..]),
        (&[][..], &[2][..]),
    ] {
        let fixed = broadcast_to_shape(d, t, NUMPY).unwrap();
        let partial = broadcast_to_partial(
            &PartialShape::fixed(d).unwrap(),
            &PartialShape::fixed(t).unwrap(),
            NUMPY,
        )
        .unwrap();
        assert_eq!(partial, PartialShape::fixed(&fixed).unwrap());
    }
}

fn unknown_of(rank: usize) -> PartialShape {
    PartialShape::dynamic(rank).unwrap()
}

/// I7: the `explicit` mode on partial shapes.
#[test]
fn i7_explicit_mode_on_partial_shapes() {
    let mapping = |m: &'static [usize]| BroadcastToMode::Explicit { axes_mapping: m };
    let target = PartialShape::fixed(&[1, 4, 2, 3]).unwrap();
    // OpenVINO's broadcast_explicit_static_input_shape_const_target_shape.
    assert_eq!(
        to(&PartialShape::fixed(&[4]).unwrap(), &target, mapping(&[1])),
        "{1,4,2,3}"
    );
    // A dynamic data rank with a target of four unknown values: four dynamic dims.
    assert_eq!(
        to(
            &PartialShape::DYNAMIC_RANK,
            &unknown_of(4),
            mapping(&[1, 2])
        ),
        "{-1,-1,-1,-1}"
    );
    assert_eq!(
        to(
            &unknown_of(2),
            &PartialShape::DYNAMIC_RANK,
            mapping(&[1, 2])
        ),
        "[...]"
    );
    // Intervals that meet the target's dim, or may be 1, fit.
    assert_eq!(
        to(&shape(&[iv(3, 6), iv(0, 2)]), &target, mapping(&[1, 3])),
        "{1,4,2,3}"
    );
    // What is known is checked: the length, the order, the range, the dims.
    let e = broadcast_to_partial(&unknown_of(2), &target, mapping(&[1])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AxesMappingLength { len: 1, rank: 2 });
    let e = broadcast_to_partial(&PartialShape::DYNAMIC_RANK, &target, mapping(&[2, 1]));
    assert_eq!(
        e.unwrap_err().kind(),
        ErrorKind::AxesMappingOrder { index: 1 }
    );
    let e = broadcast_to_partial(&unknown_of(1), &unknown_of(3), mapping(&[3])).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AxesMappingRange { index: 0, axis: 3 });
    let e = broadcast_to_partial(&shape(&[iv(5, 9)]), &target, mapping(&[1])).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::IntervalMismatch {
            axis: 1,
            lhs: iv(5, 9),
            rhs: f(4)
        }
    );
    // A shared symbol fits whatever the intervals say.
    let d = with(&[DYN], &[sym(3)]);
    let t = with(&[f(2), DYN], &[None, sym(3)]);
    assert_eq!(to(&d, &t, mapping(&[1])), "{2,-1#3}");
    // A scalar with a mapping counts as [1] (B5): it fits any target dim.
    assert_eq!(
        to(&PartialShape::fixed(&[]).unwrap(), &target, mapping(&[1])),
        "{1,4,2,3}"
    );
}

/// I8 and A19: the `pdpd` mode on partial shapes.
#[test]
fn i8_and_a19_pdpd_mode_on_partial_shapes() {
    let pdpd = |axis| BroadcastToMode::Pdpd { axis };
    // OpenVINO's broadcast_v3_pdpd: [3, 1] onto [2, 3, 6] from axis 1.
    let target = PartialShape::fixed(&[2, 3, 6]).unwrap();
    assert_eq!(
        to(&PartialShape::fixed(&[3, 1]).unwrap(), &target, pdpd(1)),
        "{2,3,6}"
    );
    // D11: the target's unknown dims take the data's where the data cannot be 1.
    let t = shape(&[f(2), DYN, DYN]);
    assert_eq!(to(&shape(&[f(3), iv(1, 4)]), &t, pdpd(1)), "{2,3,-1}");
    assert_eq!(to(&shape(&[iv(2, 5)]), &t, pdpd(-1)), "{2,-1,[2,5]}");
    // Dynamic ranks: the target's rank of unknown dims, or a dynamic rank.
    assert_eq!(
        to(&PartialShape::DYNAMIC_RANK, &target, pdpd(1)),
        "{-1,-1,-1}"
    );
    assert_eq!(
        to(&unknown_of(1), &PartialShape::DYNAMIC_RANK, pdpd(0)),
        "[...]"
    );
    // Errors name (data, target) as the static rule does.
    let e =
        broadcast_to_partial(&PartialShape::fixed(&[4]).unwrap(), &target, pdpd(1)).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::IntervalMismatch {
            axis: 1,
            lhs: f(4),
            rhs: f(3)
        }
    );
    assert_eq!(
        broadcast_to_shape(&[4], &[2, 3, 6], pdpd(1))
            .unwrap_err()
            .kind(),
        ErrorKind::DimMismatch {
            axis: 1,
            lhs: 4,
            rhs: 3
        }
    );
    let e = broadcast_to_partial(&unknown_of(4), &target, pdpd(0)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TargetRankTooSmall);
    let e = broadcast_to_partial(&unknown_of(1), &target, pdpd(-2)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NegativeAxis);
    // A19: a target dim of 1 never grows to the data's (OpenVINO's gives [3] here).
    let e = broadcast_to_partial(
        &PartialShape::fixed(&[3]).unwrap(),
        &PartialShape::fixed(&[1]).unwrap(),
        pdpd(0),
    );
    assert_eq!(
        e.unwrap_err().kind(),
        ErrorKind::IntervalMismatch {
            axis: 0,
            lhs: f(3),
            rhs: f(1)
        }
    );
    // A19: a data dim that may be 1 leaves the target's (OpenVINO intersects, and refuses).
    assert_eq!(
        to(
            &shape(&[iv(1, 3)]),
            &PartialShape::fixed(&[5]).unwrap(),
            pdpd(0)
        ),
        "{5}"
    );
}

/// I9: stretched axes on partial shapes, per axis, with symbols deciding where values cannot.
#[test]
fn i9_stretched_axes_on_partial_shapes() {
    let numpy = AutoBroadcast::Numpy;
    // Static shapes: everything is known, as B6 answers.
    let [a, b] = stretched_axes_partial(
        &PartialShape::fixed(&[8, 1, 6, 1]).unwrap(),
        &PartialShape::fixed(&[7, 1, 5]).unwrap(),
        numpy,
    )
    .unwrap();
    assert_eq!(a.known().unwrap().to_string(), "{1, 3}");
    assert_eq!(b.known().unwrap().to_string(), "{0, 2}");
    // A static 1 against a dim that cannot be 1 is stretched; a dim that cannot be 1 never
    // is; a dim that may be 1 cannot be told.
    let x = shape(&[iv(2, 9), f(1), iv(0, 4)]);
    let y = shape(&[f(1), iv(3, 5), f(6)]);
    let [sx, sy] = stretched_axes_partial(&x, &y, numpy).unwrap();
    assert_eq!(
        (sx.stretched.to_string(), sx.unknown.to_string()),
        ("{1}".into(), "{2}".into())
    );
    assert_eq!(
        (sy.stretched.to_string(), sy.unknown.to_string()),
        ("{0}".into(), "{}".into())
    );
    assert_eq!(sy.known().unwrap().to_string(), "{0}");
    assert_eq!(sx.known(), None);
    // Symbols decide: two unknown dims of one symbol are not stretched.
    let p = with(&[DYN, DYN], &[sym(1), sym(2)]);
    let q = with(&[DYN], &[sym(2)]);
    let [sp, sq] = stretched_axes_partial(&p, &q, numpy).unwrap();
    assert_eq!(sp.known().unwrap().to_string(), "{}");
    assert_eq!(
        (sq.stretched.to_string(), sq.unknown.to_string()),
        ("{0}".into(), "{}".into())
    );
    // PDPD onto a target of unknown length: nothing is known (the fuzz target `partial_shapes`
    // found this start computed as 0 - 2, an overflow).
    let s = stretched_axes_to_partial(
        &unknown_of(2),
        &PartialShape::DYNAMIC_RANK,
        BroadcastToMode::Pdpd { axis: -1 },
    )
    .unwrap();
    assert_eq!((s.rank, s.known()), (None, None));
    // A dynamic rank: nothing is known.
    let [d, _] = stretched_axes_partial(&PartialShape::DYNAMIC_RANK, &q, numpy).unwrap();
    assert_eq!((d.rank, d.known()), (None, None));
    // The Broadcast op: explicit's unmapped axes are known even without the data's rank.
    let explicit = BroadcastToMode::Explicit { axes_mapping: &[1] };
    let s =
        stretched_axes_to_partial(&PartialShape::DYNAMIC_RANK, &unknown_of(3), explicit).unwrap();
    assert_eq!(
        (s.stretched.to_string(), s.unknown.to_string()),
        ("{0, 2}".into(), "{1}".into())
    );
    let s = stretched_axes_to_partial(&shape(&[iv(2, 7)]), &unknown_of(3), explicit).unwrap();
    assert_eq!(s.known().unwrap().to_string(), "{0, 2}");
    // Static shapes agree with B6's runtime answer in every mode.
    for (d, t, mode) in [
        (&[3, 1][..], &[2, 3, 4][..], NUMPY),
        (&[3][..], &[2, 3, 4][..], BroadcastToMode::Pdpd { axis: 1 }),
        (&[1, 4, 1][..], &[1, 4][..], BroadcastToMode::Bidirectional),
        (
            &[3, 1][..],
            &[2, 3, 4][..],
            BroadcastToMode::Explicit {
                axes_mapping: &[1, 2],
            },
        ),
    ] {
        let want = stretched_axes_to(d, t, mode).unwrap();
        let got = stretched_axes_to_partial(
            &PartialShape::fixed(d).unwrap(),
            &PartialShape::fixed(t).unwrap(),
            mode,
        )
        .unwrap();
        assert_eq!(got.known(), Some(want), "{d:?} {t:?} {mode:?}");
    }
}

/// I5: a merge makes two symbols one and keeps the first input's (OpenVINO's
/// `Dimension::merge`: `set_equal`, then `merge_symbols`), the cases of its type_prop tests of
/// arithmetic, logical and bitwise operations and of Broadcast v3: `{3#1}` with `{3#2}`.
#[test]
fn i5_a_merge_keeps_the_first_inputs_symbol() {
    let a = with(&[f(3)], &[sym(1)]);
    let b = with(&[f(3)], &[sym(2)]);
    for mode in [
        AutoBroadcast::None,
        AutoBroadcast::Numpy,
        AutoBroadcast::Bidirectional,
        AutoBroadcast::Pdpd { axis: -1 },
    ] {
        let out = broadcast_partial(&a, &b, mode).unwrap();
        assert_eq!(out.to_string(), "{3#1}", "{mode:?}");
        let out = broadcast_partial(&b, &a, mode).unwrap();
        assert_eq!(out.to_string(), "{3#2}", "{mode:?}");
    }
    // Without a symbol on the first input, the second's.
    let plain = shape(&[f(3)]);
    assert_eq!(
        broadcast_partial(&plain, &b, AutoBroadcast::Numpy)
            .unwrap()
            .to_string(),
        "{3#2}"
    );
    // The Broadcast op's bidirectional and pdpd modes merge the data's dim with the
    // target's: the data's symbol is kept.
    let target = with(&[f(2), f(3)], &[None, sym(2)]);
    assert_eq!(to(&a, &target, BroadcastToMode::Bidirectional), "{2,3#1}");
    assert_eq!(
        to(&a, &target, BroadcastToMode::Pdpd { axis: 1 }),
        "{2,3#1}"
    );
    assert_eq!(
        to(&plain, &target, BroadcastToMode::Pdpd { axis: 1 }),
        "{2,3#2}"
    );
    // Intervals too: the intersection with the data's symbol.
    let data = with(&[iv(2, 9)], &[sym(1)]);
    let target = with(&[iv(4, 12)], &[sym(2)]);
    assert_eq!(
        to(&data, &target, BroadcastToMode::Bidirectional),
        "{[4,9]#1}"
    );
    assert_eq!(
        to(&data, &target, BroadcastToMode::Pdpd { axis: 0 }),
        "{[4,9]#1}"
    );
    // The numpy and explicit modes give the target, with its symbols.
    assert_eq!(to(&a, &with(&[f(3)], &[sym(2)]), NUMPY), "{3#2}");
}

/// A20: one symbol on a 224 and on a 1 contradicts itself, an error in every mode that
/// merges (OpenVINO looks for a 1 first and returns `{224}`).
#[test]
fn a20_one_symbol_on_dims_that_cannot_be_equal_is_an_error() {
    let big = with(&[f(224)], &[sym(1)]);
    let one = with(&[f(1)], &[sym(1)]);
    let expected = ErrorKind::IntervalMismatch {
        axis: 0,
        lhs: f(224),
        rhs: f(1),
    };
    for mode in [AutoBroadcast::Numpy, AutoBroadcast::Bidirectional] {
        let e = broadcast_partial(&big, &one, mode).unwrap_err();
        assert_eq!(e.kind(), expected, "{mode:?}");
    }
    let e = broadcast_to_partial(&big, &one, BroadcastToMode::Bidirectional).unwrap_err();
    assert_eq!(e.kind(), expected);
    // Without the shared symbol the 1 stretches, as on static shapes.
    let plain_one = shape(&[f(1)]);
    assert_eq!(
        broadcast_partial(&big, &plain_one, AutoBroadcast::Numpy)
            .unwrap()
            .to_string(),
        "{224#1}"
    );
}

/// A21: a static 1 passes no symbol on, also where the other dim may be 1 (OpenVINO's hull
/// keeps it: `{-1#1}`).
#[test]
fn a21_a_static_one_passes_no_symbol_on() {
    let one = with(&[f(1)], &[sym(1)]);
    let any = shape(&[DYN]);
    for mode in [AutoBroadcast::Numpy, AutoBroadcast::Bidirectional] {
        assert_eq!(
            broadcast_partial(&one, &any, mode).unwrap().to_string(),
            "{-1}"
        );
        assert_eq!(
            broadcast_partial(&any, &one, mode).unwrap().to_string(),
            "{-1}"
        );
    }
    assert_eq!(to(&one, &any, BroadcastToMode::Bidirectional), "{-1}");
}

/// A22: an explicit mapping out of order is an error whether or not the data's rank is known
/// (OpenVINO's `broadcast_explicit_const_target_shape` returns the target when it is not).
#[test]
fn a22_an_unordered_mapping_is_an_error_without_the_data_rank() {
    let target = PartialShape::fixed(&[1, 2, 3]).unwrap();
    let e = broadcast_to_partial(
        &PartialShape::DYNAMIC_RANK,
        &target,
        BroadcastToMode::Explicit {
            axes_mapping: &[0, 2, 1],
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AxesMappingOrder { index: 2 });
    assert_eq!(
        e.to_string(),
        "cannot broadcast partial shapes of an unknown rank and rank 3 (broadcast_to explicit): \
         axes_mapping is not increasing at entry 2"
    );
}

/// A23: a mapping of unknown values longer than the target's rank cannot be increasing.
#[test]
fn a23_an_unknown_mapping_longer_than_the_target_is_an_error() {
    let target = PartialShape::fixed(&[1, 4, 2, 3]).unwrap();
    let e = broadcast_explicit_partial(
        &PartialShape::DYNAMIC_RANK,
        &target,
        PartialMapping::Length(5),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AxesMappingTooLong { len: 5, rank: 4 });
    assert!(e
        .to_string()
        .ends_with("axes_mapping has 5 entries, the target rank is 4"));
    // The same length onto a target whose rank is not known: nothing to check yet.
    let out = broadcast_explicit_partial(
        &PartialShape::DYNAMIC_RANK,
        &PartialShape::DYNAMIC_RANK,
        PartialMapping::Length(5),
    );
    assert_eq!(out.unwrap().to_string(), "[...]");
}

/// I7 with a mapping whose values are not known: the result is the target, its length
/// checked where the data's rank is known (OpenVINO's `broadcast_explicit_*` type_prop cases
/// with a Parameter for `axes_mapping`).
#[test]
fn i7_an_unknown_mapping_gives_the_target() {
    let dynamic = PartialShape::DYNAMIC_RANK;
    let run = |data: &PartialShape, target: &PartialShape, m: PartialMapping<'_>| {
        broadcast_explicit_partial(data, target, m).map(|s| s.to_string())
    };
    let u = PartialMapping::Unknown;
    // all_inputs_dynamic, target_shape_static_rank (a target tensor of unknown length).
    assert_eq!(run(&dynamic, &dynamic, u).unwrap(), "[...]");
    assert_eq!(run(&unknown_of(3), &dynamic, u).unwrap(), "[...]");
    // const_target_shape.
    let t123 = PartialShape::fixed(&[1, 2, 3]).unwrap();
    assert_eq!(run(&dynamic, &t123, u).unwrap(), "{1,2,3}");
    // const_target_shape_static_rank_input, and a mapping of the wrong length.
    let t = PartialShape::fixed(&[1, 1, 5, 10]).unwrap();
    assert_eq!(run(&unknown_of(3), &t, u).unwrap(), "{1,1,5,10}");
    assert_eq!(
        run(&unknown_of(3), &t, PartialMapping::Length(4))
            .unwrap_err()
            .kind(),
        ErrorKind::AxesMappingLength { len: 4, rank: 3 }
    );
    assert_eq!(
        run(&unknown_of(3), &t, PartialMapping::Length(3)).unwrap(),
        "{1,1,5,10}"
    );
    // static_input_shape: the target's length unknown.
    let data = PartialShape::fixed(&[1, 2, 3, 4]).unwrap();
    assert_eq!(run(&data, &dynamic, u).unwrap(), "[...]");
    // static_input_shape_const_target_shape, with the values and without.
    let data = PartialShape::fixed(&[4]).unwrap();
    let t = PartialShape::fixed(&[1, 4, 2, 3]).unwrap();
    assert_eq!(run(&data, &t, u).unwrap(), "{1,4,2,3}");
    assert_eq!(
        run(&data, &t, PartialMapping::Values(&[1])).unwrap(),
        "{1,4,2,3}"
    );
    // static_target_shape: four unknown values.
    assert_eq!(run(&dynamic, &unknown_of(4), u).unwrap(), "{-1,-1,-1,-1}");
    assert_eq!(
        run(&unknown_of(2), &unknown_of(4), u).unwrap(),
        "{-1,-1,-1,-1}"
    );
    // A scalar's non-empty mapping counts as [1]; an empty one fits a scalar.
    let scalar = PartialShape::fixed(&[]).unwrap();
    assert!(run(&scalar, &t, PartialMapping::Length(1)).is_ok());
    assert!(run(&scalar, &t, PartialMapping::Length(0)).is_ok());
    assert_eq!(
        run(&scalar, &t, PartialMapping::Length(2))
            .unwrap_err()
            .kind(),
        ErrorKind::AxesMappingLength { len: 2, rank: 1 }
    );
    // The target's symbols come through.
    let ts = with(&[DYN, f(3)], &[sym(5), None]);
    assert_eq!(run(&unknown_of(1), &ts, u).unwrap(), "{-1#5,3}");
}

/// I7 against the plain run: for static shapes, an unknown mapping of a given length is
/// accepted exactly when some increasing mapping of that length onto the target is not
/// refused for its length or range, and then its result is the shape every accepted
/// mapping gives.
#[test]
fn i7_an_unknown_mapping_agrees_with_every_mapping_it_stands_for() {
    let cases: &[(&[usize], &[usize])] = &[
        (&[4], &[1, 4, 2, 3]),
        (&[3, 1], &[2, 3, 1]),
        (&[], &[2, 3]),
        (&[2, 3], &[2, 3]),
        (&[5], &[5]),
        (&[1, 1, 1], &[2, 2]),
    ];
    for &(data, target) in cases {
        let pd = PartialShape::fixed(data).unwrap();
        let pt = PartialShape::fixed(target).unwrap();
        for len in 0..=target.len() + 1 {
            let partial = broadcast_explicit_partial(&pd, &pt, PartialMapping::Length(len));
            let mut any_fits_length = false;
            let mut mapping = Vec::new();
            increasing(
                len,
                target.len(),
                &mut mapping,
                &mut |m| match broadcast_to_shape(
                    data,
                    target,
                    BroadcastToMode::Explicit { axes_mapping: m },
                ) {
                    Ok(out) => {
                        assert_eq!(out.as_slice(), target);
                        any_fits_length = true;
                    }
                    Err(e) => {
                        if matches!(
                            e.kind(),
                            ErrorKind::IntervalMismatch { .. } | ErrorKind::DimMismatch { .. }
                        ) {
                            any_fits_length = true;
                        }
                    }
                },
            );
            assert_eq!(
                partial.is_ok(),
                any_fits_length,
                "{data:?} -> {target:?}, {len} entries: {partial:?}"
            );
            if let Ok(out) = partial {
                assert_eq!(out, pt);
            }
        }
    }
}

/// Calls `f` with every strictly increasing list of `len` axes below `rank`.
fn increasing(len: usize, rank: usize, prefix: &mut Vec<usize>, f: &mut dyn FnMut(&[usize])) {
    if prefix.len() == len {
        f(prefix);
        return;
    }
    let from = prefix.last().map_or(0, |&a| a + 1);
    for axis in from..rank {
        prefix.push(axis);
        increasing(len, rank, prefix, f);
        prefix.pop();
    }
}
