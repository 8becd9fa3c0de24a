//! Property tests: random shapes (dims biased to 0 and 1), every mode, contiguous and
//! transposed inputs, checked against a deliberately simple reference that works index by
//! index. PDPD values use RULES.md's D9 formulation (reshape B, then NUMPY), not the kernel's.

use crate::common;

use shaped::rules::{broadcast_to_shape, BroadcastToMode};
use shaped::runtime::{binary_into, broadcast_into, ArrayRef, BinaryPlan};
use shaped::{broadcast_shapes, AutoBroadcast, BinaryOp, DynTensor};

/// xorshift64*: small, deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn dim(&mut self) -> usize {
        [0, 1, 1, 1, 2, 3][self.below(6)]
    }
    fn shape(&mut self, max_rank: usize) -> Vec<usize> {
        let r = self.below(max_rank + 1);
        (0..r).map(|_| self.dim()).collect()
    }
    /// A shape likely to be compatible with `a`: a run of its dims, some replaced by 1.
    fn related(&mut self, a: &[usize]) -> Vec<usize> {
        if a.is_empty() || self.below(4) == 0 {
            return self.shape(4);
        }
        let start = self.below(a.len() + 1);
        let end = start + self.below(a.len() - start + 1);
        let mut b: Vec<usize> = a[start..end]
            .iter()
            .map(|&d| if self.below(3) == 0 { 1 } else { d })
            .collect();
        if self.below(4) == 0 {
            b.push(1); // a trailing 1 for PDPD trimming
        }
        b
    }
}

/// RULES.md's rules, written the textbook way.
fn reference_shape(
    a: &[usize],
    b: &[usize],
    mode: AutoBroadcast,
) -> Option<(Vec<usize>, Vec<usize>)> {
    match mode {
        AutoBroadcast::None => (a == b).then(|| (a.to_vec(), b.to_vec())),
        AutoBroadcast::Numpy | AutoBroadcast::Bidirectional => {
            common::numpy_shape(a, b).map(|o| (o, b.to_vec()))
        }
        AutoBroadcast::Pdpd { axis } => {
            if b.len() > a.len() || axis < -1 {
                return None;
            }
            let axis = if axis == -1 {
                a.len() - b.len()
            } else {
                axis as usize
            };
            let mut bt = b.to_vec();
            while bt.last() == Some(&1) {
                bt.pop();
            }
            if axis + bt.len() > a.len() {
                return None;
            }
            if bt
                .iter()
                .enumerate()
                .any(|(i, &d)| d != 1 && d != a[axis + i])
            {
                return None;
            }
            // D9: B reshaped to [1]*axis + B' + [1]*(rank(A) - axis - rank(B')).
            let mut reshaped = vec![1; axis];
            reshaped.extend(&bt);
            reshaped.resize(a.len(), 1);
            Some((a.to_vec(), reshaped))
        }
    }
}

fn numbered(n: usize, base: i64) -> Vec<i64> {
    (0..n as i64).map(|k| base + k).collect()
}

/// The elements of `logical` (row-major, shape `shape`) stored transposed: the physical
/// buffer and the logical strides that read it back.
fn transposed(logical: &[i64], shape: &[usize]) -> (Vec<i64>, Vec<usize>) {
    let strides: Vec<usize> = (0..shape.len())
        .map(|i| shape[..i].iter().product())
        .collect();
    let mut phys = vec![0; logical.len()];
    for (k, idx) in common::indices(shape).iter().enumerate() {
        let off: usize = idx.iter().zip(&strides).map(|(i, s)| i * s).sum();
        phys[off] = logical[k];
    }
    (phys, strides)
}

fn random_mode(rng: &mut Rng, rank_a: usize) -> AutoBroadcast {
    match rng.below(5) {
        0 => AutoBroadcast::None,
        1 => AutoBroadcast::Numpy,
        2 => AutoBroadcast::Bidirectional,
        _ => AutoBroadcast::Pdpd {
            axis: rng.below(rank_a + 3) as i64 - 2,
        },
    }
}

#[test]
fn elementwise_modes_match_the_reference() {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let (mut accepted, mut rejected) = (0, 0);
    for _ in 0..4000 {
        let a = rng.shape(4);
        let b = rng.related(&a);
        let mode = random_mode(&mut rng, a.len());
        let got = broadcast_shapes(&a, &b, mode);
        let want = reference_shape(&a, &b, mode);
        let Some((out, b_as)) = want else {
            assert!(
                got.is_err(),
                "{a:?} {b:?} {mode:?}: accepted as {:?}",
                got.unwrap()
            );
            rejected += 1;
            continue;
        };
        accepted += 1;
        assert_eq!(got.unwrap().to_vec(), out, "{a:?} {b:?} {mode:?}");

        let (na, nb) = (a.iter().product::<usize>(), b.iter().product::<usize>());
        let (va, vb) = (numbered(na, 0), numbered(nb, 1000));
        let expect: Vec<i64> = common::indices(&out)
            .iter()
            .map(|i| {
                common::read_broadcast(&va, &a, i) * 10_000 + common::read_broadcast(&vb, &b_as, i)
            })
            .collect();

        // Contiguous inputs.
        let mut buf = vec![0i64; expect.len()];
        let f = |x: &i64, y: &i64| x * 10_000 + y;
        shaped::runtime::zip_into(
            ArrayRef::new(&a, &va).unwrap(),
            ArrayRef::new(&b, &vb).unwrap(),
            mode,
            &mut buf,
            f,
        )
        .unwrap();
        assert_eq!(buf, expect, "{a:?} {b:?} {mode:?}");

        // Transposed (non-contiguous) inputs.
        let (pa, sa) = transposed(&va, &a);
        let (pb, sb) = transposed(&vb, &b);
        let ta = ArrayRef::with_strides(&a, &sa, &pa).unwrap();
        let tb = ArrayRef::with_strides(&b, &sb, &pb).unwrap();
        let mut buf2 = vec![0i64; expect.len()];
        shaped::runtime::zip_into(ta, tb, mode, &mut buf2, f).unwrap();
        assert_eq!(buf2, expect, "transposed {a:?} {b:?} {mode:?}");

        // Through the arithmetic kernel and the dynamic tensor.
        let mut sum = vec![0i64; expect.len()];
        binary_into(ta, tb, BinaryOp::Add, mode, &mut sum).unwrap();
        let want_sum: Vec<i64> = common::indices(&out)
            .iter()
            .map(|i| common::read_broadcast(&va, &a, i) + common::read_broadcast(&vb, &b_as, i))
            .collect();
        assert_eq!(sum, want_sum);
        let dyn_sum = DynTensor::from_shape_vec(&a, va.clone())
            .unwrap()
            .binary(
                &DynTensor::from_shape_vec(&b, vb.clone()).unwrap(),
                BinaryOp::Add,
                mode,
            )
            .unwrap();
        assert_eq!(dyn_sum.as_slice(), &want_sum[..]);

        // A prepared plan gives the same, and refuses buffers of another length.
        let plan = BinaryPlan::new(&a, &b, mode).unwrap();
        assert_eq!(plan.output_shape(), &out[..]);
        let mut prepared = vec![0i64; expect.len()];
        plan.binary(&va, &vb, BinaryOp::Add, &mut prepared).unwrap();
        assert_eq!(prepared, want_sum);
        let mut longer = vec![0i64; expect.len() + 1];
        assert!(plan.binary(&va, &vb, BinaryOp::Add, &mut longer).is_err());
    }
    assert!(
        accepted > 1000 && rejected > 500,
        "accepted {accepted}, rejected {rejected}"
    );
}

/// The Broadcast op's modes (B5) against their textbook definitions.
#[test]
fn broadcast_op_modes_match_the_reference() {
    let mut rng = Rng(0x5EED_0000_0000_0B05);
    let mut checked = 0;
    for _ in 0..3000 {
        let target = rng.shape(4);
        let data = rng.related(&target);
        let vd = numbered(data.iter().product(), 1);
        // Each data dim's output axis, if the textbook rule accepts, for a random mode.
        let (mode_axes, mode): (Option<Vec<usize>>, BroadcastToMode<'_>) = match rng.below(3) {
            0 => {
                let ok = data.len() <= target.len()
                    && data
                        .iter()
                        .rev()
                        .zip(target.iter().rev())
                        .all(|(&d, &t)| d == 1 || d == t);
                let pad = target.len().saturating_sub(data.len());
                (
                    ok.then(|| (0..data.len()).map(|i| pad + i).collect()),
                    BroadcastToMode::Numpy,
                )
            }
            1 => {
                let axis = rng.below(target.len() + 2) as i64 - 1;
                let start = if axis == -1 {
                    target.len().checked_sub(data.len())
                } else {
                    Some(axis as usize)
                };
                let keep = data.iter().rposition(|&d| d != 1).map_or(0, |i| i + 1);
                let ok = data.len() <= target.len()
                    && start.is_some_and(|s| {
                        s + keep <= target.len()
                            && (0..keep).all(|i| data[i] == 1 || data[i] == target[s + i])
                    });
                let start = start.unwrap_or(0);
                (
                    ok.then(|| (0..data.len()).map(|i| start + i).collect()),
                    BroadcastToMode::Pdpd { axis },
                )
            }
            _ => {
                // A random increasing mapping of the right length.
                let mut axes: Vec<usize> =
                    (0..target.len()).filter(|_| rng.below(2) == 0).collect();
                axes.truncate(data.len());
                let ok = axes.len() == data.len()
                    && axes
                        .iter()
                        .zip(&data)
                        .all(|(&ax, &d)| d == 1 || d == target[ax]);
                let leaked: &'static [usize] = Box::leak(axes.clone().into_boxed_slice());
                (
                    ok.then_some(axes),
                    BroadcastToMode::Explicit {
                        axes_mapping: leaked,
                    },
                )
            }
        };
        let got = broadcast_to_shape(&data, &target, mode);
        let Some(axes) = mode_axes else {
            assert!(got.is_err(), "{data:?} -> {target:?} {mode:?} accepted");
            continue;
        };
        assert_eq!(
            got.unwrap().to_vec(),
            target,
            "{data:?} -> {target:?} {mode:?}"
        );
        let expect: Vec<i64> = common::indices(&target)
            .iter()
            .map(|idx| {
                let mut off = 0;
                for (i, &d) in data.iter().enumerate() {
                    let coord = if d == 1 { 0 } else { idx[axes[i]] };
                    off = off * d + coord;
                }
                vd[off]
            })
            .collect();
        let mut out = vec![0i64; expect.len()];
        broadcast_into(ArrayRef::new(&data, &vd).unwrap(), &target, mode, &mut out).unwrap();
        assert_eq!(out, expect, "{data:?} -> {target:?} {mode:?}");
        checked += 1;
    }
    assert!(checked > 800, "only {checked} accepted cases");
}
