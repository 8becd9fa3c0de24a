//! Partial shapes beyond the elementwise modes (I5-I9): the Broadcast op's modes on intervals,
//! dynamic ranks and unknown targets, symbols, and stretched axes; never a panic, and on static
//! shapes exactly the static rules' answers.
use super::super::Input;
use shaped::rules::partial::{
    broadcast_explicit_partial, broadcast_partial, broadcast_to_partial, stretched_axes_partial,
    stretched_axes_to_partial, Interval, PartialMapping, PartialShape, Symbol,
};
use shaped::rules::{broadcast_to_shape, stretched_axes, stretched_axes_to, BroadcastToMode};

fn interval(input: &mut Input<'_>) -> Interval {
    match input.below(6) {
        0 => Interval::DYNAMIC,
        1 => Interval::at_least(input.below(4)),
        2 => {
            let lo = input.below(4);
            Interval::new(lo, lo + input.below(4)).unwrap()
        }
        _ => Interval::fixed(input.below(4)),
    }
}

fn partial(input: &mut Input<'_>, static_only: bool) -> PartialShape {
    if !static_only && input.below(8) == 0 {
        return PartialShape::DYNAMIC_RANK;
    }
    let rank = input.below(5);
    let dims: Vec<Interval> = (0..rank)
        .map(|_| {
            if static_only {
                Interval::fixed(input.below(4))
            } else {
                interval(input)
            }
        })
        .collect();
    let symbols: Vec<Option<Symbol>> = (0..rank)
        .map(|_| {
            if static_only {
                None
            } else {
                Symbol::new(input.below(4) as u32)
            }
        })
        .collect();
    PartialShape::new(&dims)
        .unwrap()
        .with_symbols(&symbols)
        .unwrap()
}

fn fixed(p: &PartialShape) -> Vec<usize> {
    p.dims()
        .unwrap()
        .iter()
        .map(|d| d.as_static().unwrap())
        .collect()
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let static_only = input.below(2) == 0;
    let (data, target) = (
        partial(&mut input, static_only),
        partial(&mut input, static_only),
    );
    let mapping: Vec<usize> = (0..input.below(4)).map(|_| input.below(5)).collect();
    let mode = match input.below(4) {
        0 => BroadcastToMode::Numpy,
        1 => BroadcastToMode::Explicit {
            axes_mapping: &mapping,
        },
        2 => BroadcastToMode::Pdpd { axis: input.axis() },
        _ => BroadcastToMode::Bidirectional,
    };
    let out = broadcast_to_partial(&data, &target, mode);
    let axes = stretched_axes_to_partial(&data, &target, mode);
    assert_eq!(out.is_ok(), axes.is_ok());
    // A mapping whose values are not known stands for every mapping of its length (I7): it
    // gives the target, and accepts every length a known mapping is accepted with.
    let unknown = broadcast_explicit_partial(&data, &target, PartialMapping::Unknown);
    assert_eq!(unknown, Ok(target));
    let by_length =
        broadcast_explicit_partial(&data, &target, PartialMapping::Length(mapping.len()));
    if let (BroadcastToMode::Explicit { .. }, Ok(o)) = (mode, out) {
        assert_eq!(by_length, Ok(o), "{data} {target} {mapping:?}");
    }
    let emode = input.mode();
    let pair = broadcast_partial(&data, &target, emode);
    let pair_axes = stretched_axes_partial(&data, &target, emode);
    assert_eq!(pair.is_ok(), pair_axes.is_ok());
    if !static_only {
        // A result's symbols are per dim of its rank.
        if let Ok(o) = out {
            assert_eq!(o.symbols().map(<[_]>::len), o.dims().map(<[_]>::len));
        }
        return;
    }
    let (d, t) = (fixed(&data), fixed(&target));
    let want = broadcast_to_shape(&d, &t, mode);
    assert_eq!(
        out.is_ok(),
        want.is_ok(),
        "{d:?} {t:?} {mode:?}: {out:?} vs {want:?}"
    );
    if let (Ok(o), Ok(w)) = (out, want) {
        assert_eq!(fixed(&o), w.to_vec());
        assert_eq!(
            axes.unwrap().known(),
            Some(stretched_axes_to(&d, &t, mode).unwrap())
        );
    }
    if let Ok([a, b]) = pair_axes {
        let [wa, wb] = stretched_axes(&d, &t, emode).unwrap();
        assert_eq!(
            (a.known(), b.known()),
            (Some(wa), Some(wb)),
            "{d:?} {t:?} {emode:?}"
        );
    }
}
