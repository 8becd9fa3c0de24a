//! The ndarray bridge (feature `ndarray`) both ways, on arrays ndarray can make that shaped
//! must refuse or copy: shapes of any rank (past shaped's limit too), empty ones with huge
//! other dims, views sliced with steps (negative too), permuted, with an axis inverted, an
//! axis inserted, or broadcast (stride 0). Checked: `DynTensor::from_array` and
//! `Tensor::try_from(view)` copy every element in ndarray's logical order; a tensor view of an
//! ndarray view exists exactly when it is in standard layout, over the same elements; owned
//! arrays move into `DynTensor` and back unchanged; `as_array_view` of tensors and of strided
//! `DynView`s (permuted, narrowed) shows the same element at every index; each refusal is the
//! error kind the bridge documents.
use super::super::{count, indices, Input};
use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn, Slice};
use shaped::{DynTensor, ErrorKind, Shape, Tensor, TensorView};

/// Views at most this many elements: broadcasting may otherwise ask for a copy of gigabytes.
const MAX_COPY: usize = 1 << 12;

/// The elements of `a` in its logical (row-major) order, read index by index.
fn logical(a: &ArrayViewD<'_, i32>) -> Vec<i32> {
    indices(a.shape()).iter().map(|i| a[IxDyn(i)]).collect()
}

/// One view of `base` reshaped by the fuzzer, and the shape to broadcast it to last, if any
/// (`None` for a broadcast past [`MAX_COPY`] elements).
type Transformed<'a> = Option<(ArrayViewD<'a, i32>, Option<Vec<usize>>)>;

fn transformed<'a>(mut v: ArrayViewD<'a, i32>, input: &mut Input) -> Transformed<'a> {
    for _ in 0..input.below(4) {
        let rank = v.ndim();
        match input.below(6) {
            0 if rank > 0 => {
                let axis = input.below(rank);
                let len = v.len_of(Axis(axis)) as isize;
                let start = input.below(len as usize + 1) as isize;
                let step = [1, 2, 3, -1, -2][input.below(5)];
                v.slice_axis_inplace(Axis(axis), Slice::new(start, None, step));
            }
            1 if rank > 1 => {
                let mut axes: Vec<usize> = (0..rank).collect();
                axes.rotate_left(1 + input.below(rank - 1));
                v = v.permuted_axes(axes);
            }
            2 if rank > 0 => v.invert_axis(Axis(input.below(rank))),
            3 if rank < 8 => v.insert_axis_inplace(Axis(input.below(rank + 1))),
            4 => {
                // Broadcast onto a shape with up to two more leading dims and its 1s stretched.
                let mut target: Vec<usize> =
                    (0..input.below(3)).map(|_| input.dim(false)).collect();
                target.extend(
                    v.shape()
                        .iter()
                        .map(|&d| if d == 1 { input.dim(false) } else { d }),
                );
                if count(&target).is_none_or(|n| n > MAX_COPY) {
                    return None;
                }
                return Some((v, Some(target)));
            }
            _ => {}
        }
    }
    Some((v, None))
}

/// Copies of any view: every element, in order; a rank past the limit is refused.
fn copies(v: &ArrayViewD<'_, i32>) {
    let want = logical(v);
    match DynTensor::from_array(v) {
        Ok(t) => {
            assert_eq!((t.shape(), t.as_slice()), (v.shape(), &want[..]));
            // Back into ndarray, with no copy, and again.
            let a = ArrayD::try_from(t).unwrap();
            assert_eq!(logical(&a.view()), want);
            let back = DynTensor::try_from(a).unwrap();
            assert_eq!(back.as_slice(), &want[..]);
        }
        Err(e) => {
            assert!(v.ndim() > shaped::rules::MAX_RANK);
            assert_eq!(
                e.kind(),
                ErrorKind::RankLimit {
                    max: shaped::rules::MAX_RANK
                }
            );
        }
    }
    // The owned form: moved when in standard layout, copied otherwise.
    let owned = v.to_owned();
    if let Ok(t) = DynTensor::try_from(owned) {
        assert_eq!(t.as_slice(), &want[..]);
    }
    if v.ndim() == 2 {
        let m = Tensor::<i32, Shape![_, _]>::try_from(v.view()).unwrap();
        assert_eq!((m.shape().as_ref(), m.as_slice()), (v.shape(), &want[..]));
        let s = Tensor::<i32, Shape![2, 3]>::try_from(v.view());
        assert_eq!(s.is_ok(), v.shape() == [2, 3]);
        let tv = TensorView::<i32, Shape![_, _]>::try_from(v.view());
        match tv {
            Ok(tv) => {
                assert!(v.is_standard_layout());
                assert_eq!(tv.as_slice(), &want[..]);
            }
            Err(e) => {
                assert!(!v.is_standard_layout());
                assert_eq!(e.kind(), ErrorKind::NotContiguous);
            }
        }
    } else {
        assert!(Tensor::<i32, Shape![_, _]>::try_from(v.view()).is_err());
        assert!(TensorView::<i32, Shape![_, _]>::try_from(v.view()).is_err());
    }
}

/// shaped's tensors and strided views seen through ndarray: the same element at every index.
fn views(t: &DynTensor<i32>, input: &mut Input) {
    match t.as_array_view() {
        Ok(a) => assert_eq!(logical(&a), t.as_slice()),
        Err(e) => {
            // Only an empty shape whose other dims pass `isize::MAX` cannot be held.
            assert_eq!(e.kind(), ErrorKind::Overflow);
            assert!(t.is_empty());
        }
    }
    let mut view = t.strided();
    for _ in 0..input.below(3) {
        let rank = view.rank() as i64;
        let next = if input.below(2) == 0 && rank > 1 {
            let mut axes: Vec<i64> = (0..rank).collect();
            axes.rotate_left(1);
            view.permute(axes)
        } else {
            let axis = input.below(rank.max(1) as usize) as i64;
            let start = input.below(3);
            let len = input.below(3);
            view.narrow(axis, start, len)
        };
        if let Ok(next) = next {
            view = next;
        }
    }
    let copy = view.to_tensor();
    match view.as_array_view() {
        Ok(a) => {
            assert_eq!(a.shape(), view.shape());
            assert_eq!(logical(&a), copy.as_slice());
        }
        Err(e) => assert_eq!(e.kind(), ErrorKind::Overflow),
    }
}

/// One fuzz input: a base array (small, or empty with huge dims, or of a rank past shaped's
/// limit), some views of it, and the conversions of each.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let shape = input.shape(5, true);
    let Some(n) = count(&shape).filter(|&n| n <= 64) else {
        return;
    };
    // ndarray refuses shapes whose non-zero dims pass `isize::MAX`; so does shaped, later.
    let Ok(base) = ArrayD::from_shape_vec(IxDyn(&shape), (0..n as i32).collect()) else {
        return;
    };
    match transformed(base.view(), &mut input) {
        Some((v, None)) => copies(&v),
        Some((v, Some(target))) => {
            // ndarray refuses some broadcasts (a zero-size target whose other dims multiply
            // past `isize::MAX`): nothing of shaped's to test there.
            if let Some(b) = v.broadcast(IxDyn(&target)) {
                copies(&b);
            }
        }
        None => {}
    }
    if shape.len() <= shaped::rules::MAX_RANK {
        let t = DynTensor::from_shape_vec(&shape, (0..n as i32).collect()).unwrap();
        views(&t, &mut input);
    }
}
