//! A statistics pipeline on runtime shapes (`DynTensor`): 100,000 rows of 12 f32 columns.
//! Each column normalized by its mean and standard deviation; the rows whose first
//! normalized column is positive kept (the others zeroed, numpy's `where`); the number kept
//! (a cast of the mask), the per-column sums of the kept rows in f64 (a cast), and the
//! per-column standard deviation of the masked table.

use ndarray::{Array1, Array2, Axis, Zip};
use shaped::DynTensor;

use crate::common::{Check, Rng};

const ROWS: usize = 100_000;
const COLS: usize = 12;

pub struct Inputs {
    pub shaped: DynTensor<f32>,
    pub ndarray: Array2<f32>,
    pub hand: Vec<f32>,
}

pub fn inputs() -> Inputs {
    let mut rng = Rng::new(4);
    // Column j has level j and spread 1 + j.
    let x: Vec<f32> = (0..ROWS * COLS)
        .map(|i| {
            let j = (i % COLS) as f32;
            j + (1.0 + j) * rng.next_f32()
        })
        .collect();
    Inputs {
        shaped: DynTensor::from_shape_vec([ROWS, COLS], x.clone()).unwrap(),
        ndarray: Array2::from_shape_vec((ROWS, COLS), x.clone()).unwrap(),
        hand: x,
    }
}

/// The kept rows' count, their per-column sums, and the masked table's per-column
/// standard deviation.
pub struct Summary<S, D> {
    pub count: f32,
    pub sums: S,
    pub std: D,
}

pub fn shaped(
    x: &DynTensor<f32>,
) -> Result<Summary<DynTensor<f64>, DynTensor<f32>>, shaped::Error> {
    let mean = x.mean(&[0], true)?; // [1, 12]
    let std = x.std(&[0], 0, true)?; // [1, 12]
    let z = x.try_sub(&mean)?.try_div(&std)?;
    let keep = z.narrow(1, 0, 1)?.try_gt(&DynTensor::scalar(0.0))?; // [rows, 1]
    let kept = DynTensor::where_cond(&keep, &z, &DynTensor::scalar(0.0))?;
    Ok(Summary {
        count: keep.cast::<f32>().sum_all(),
        sums: kept.cast::<f64>().sum(&[0], false)?,
        std: kept.std(&[0], 0, false)?,
    })
}

pub fn ndarray(x: &Array2<f32>) -> Summary<Array1<f64>, Array1<f32>> {
    let mean = x.mean_axis(Axis(0)).unwrap();
    let std = x.std_axis(Axis(0), 0.0);
    let mut z = (x - &mean) / &std;
    let keep = z.column(0).mapv(|v| v > 0.0);
    Zip::from(z.rows_mut()).and(&keep).for_each(|mut row, &k| {
        if !k {
            row.fill(0.0);
        }
    });
    Summary {
        count: keep.mapv(|k| k as u8 as f32).sum(),
        sums: z.mapv(|v| v as f64).sum_axis(Axis(0)),
        std: z.std_axis(Axis(0), 0.0),
    }
}

pub fn hand(x: &[f32]) -> Summary<[f64; COLS], [f32; COLS]> {
    let n = (x.len() / COLS) as f64;
    let mut sum = [0.0f64; COLS];
    for row in x.chunks_exact(COLS) {
        for (s, v) in sum.iter_mut().zip(row) {
            *s += *v as f64;
        }
    }
    let mean = sum.map(|s| s / n);
    let mut sq = [0.0f64; COLS];
    for row in x.chunks_exact(COLS) {
        for ((q, v), m) in sq.iter_mut().zip(row).zip(&mean) {
            let d = *v as f64 - m;
            *q += d * d;
        }
    }
    let mean = mean.map(|m| m as f32);
    let std = sq.map(|q| (q / n).sqrt() as f32);
    let mut count = 0usize;
    let mut sums = [0.0f64; COLS];
    let mut sums_sq = [0.0f64; COLS];
    for row in x.chunks_exact(COLS) {
        if (row[0] - mean[0]) / std[0] > 0.0 {
            count += 1;
            for c in 0..COLS {
                let z = (row[c] - mean[c]) / std[c];
                sums[c] += z as f64;
                sums_sq[c] += z as f64 * z as f64;
            }
        }
    }
    // The masked table's rows that were zeroed count as zeros: one pass, variance as
    // E[z^2] - E[z]^2 in f64.
    let spread = std::array::from_fn(|c| {
        let m = sums[c] / n;
        (sums_sq[c] / n - m * m).sqrt() as f32
    });
    Summary {
        count: count as f32,
        sums,
        std: spread,
    }
}

/// Compared: the kept fraction, the kept rows' per-column means, and the standard deviations,
/// all of order 1. The column statistics over 100,000 values differ by summation order (shaped
/// pairwise in f32, ndarray row after row in f32 and Welford's update for `std_axis`, the hand
/// loop in f64): ndarray's running f32 sums may drift by sqrt(n) * 2^-24 relative, about
/// 2e-5, typically, which moves the normalized values by as much; a row whose first value lies
/// within that of the mean may switch sides, moving the fraction by 1e-5 and a mean by about
/// 2e-5. 1e-4 bounds these.
pub const TOLERANCE: f32 = 1e-4;

fn flat(count: f32, sums: &[f64], std: &[f32]) -> Vec<f32> {
    let mut v = vec![count / ROWS as f32];
    v.extend(sums.iter().map(|s| (s / count as f64) as f32));
    v.extend_from_slice(std);
    v
}

pub fn check() -> Check {
    let inp = inputs();
    let s = shaped(&inp.shaped).unwrap();
    let n = ndarray(&inp.ndarray);
    let h = hand(&inp.hand);
    Check::new(
        "stats",
        &flat(s.count, s.sums.as_slice(), s.std.as_slice()),
        &flat(
            n.count,
            n.sums.as_slice().unwrap(),
            n.std.as_slice().unwrap(),
        ),
        &flat(h.count, &h.sums, &h.std),
        TOLERANCE,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn three_versions_agree() {
        let c = super::check();
        println!("{}", c.report());
        assert!(c.passes(), "{}", c.report());
    }
}
