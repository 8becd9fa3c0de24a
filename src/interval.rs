//! Interval dims: a dim known to lie in `[lo, hi]`, and the two ways of joining them that the
//! rules of section 6 of the [rules document](crate::rules) use (I1 `merge`, I2
//! `broadcast_merge`). A leaf: the error type holds intervals, and the partial-shape rules in
//! [`rules::partial`](crate::rules::partial) build on them.

use core::fmt;

/// A dim known to lie in `[lo, hi]`; `hi == None` means unbounded. `-1` in RULES.md is
/// [`Interval::DYNAMIC`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interval {
    lo: usize,
    hi: Option<usize>,
}

impl Interval {
    /// `[0, ∞)`: nothing known (`-1` in RULES.md).
    pub const DYNAMIC: Interval = Interval { lo: 0, hi: None };

    /// The one-point interval `[n, n]`: a static dim.
    pub const fn fixed(n: usize) -> Self {
        Interval { lo: n, hi: Some(n) }
    }

    /// `[lo, hi]`, or `None` if `lo > hi`.
    pub const fn new(lo: usize, hi: usize) -> Option<Self> {
        if lo <= hi {
            Some(Interval { lo, hi: Some(hi) })
        } else {
            None
        }
    }

    /// `[lo, ∞)`.
    pub const fn at_least(lo: usize) -> Self {
        Interval { lo, hi: None }
    }

    /// The lower bound.
    pub fn lo(&self) -> usize {
        self.lo
    }

    /// The upper bound, `None` when unbounded.
    pub fn hi(&self) -> Option<usize> {
        self.hi
    }

    /// The value, if the interval is a single point.
    pub fn as_static(&self) -> Option<usize> {
        (self.hi == Some(self.lo)).then_some(self.lo)
    }

    /// Whether `n` lies in the interval.
    pub fn contains(&self, n: usize) -> bool {
        self.lo <= n && self.hi.is_none_or(|hi| n <= hi)
    }

    /// I1: the intersection, or `None` when empty.
    pub fn merge(self, other: Interval) -> Option<Interval> {
        let lo = self.lo.max(other.lo);
        let hi = match (self.hi, other.hi) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if hi.is_some_and(|hi| lo > hi) {
            None
        } else {
            Some(Interval { lo, hi })
        }
    }

    /// I2: if both contain 1, their hull; if only one does, the other; if neither, the
    /// intersection (`None` when empty). Optimistic: `-1` with `2` gives `2`.
    pub fn broadcast_merge(self, other: Interval) -> Option<Interval> {
        match (self.contains(1), other.contains(1)) {
            (true, true) => Some(Interval {
                lo: self.lo.min(other.lo),
                hi: self.hi.zip(other.hi).map(|(a, b)| a.max(b)),
            }),
            (true, false) => Some(other),
            (false, true) => Some(self),
            (false, false) => self.merge(other),
        }
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.as_static(), self.hi) {
            (Some(n), _) => write!(f, "{n}"),
            (None, Some(hi)) => write!(f, "[{},{hi}]", self.lo),
            (None, None) if self.lo == 0 => f.write_str("-1"),
            (None, None) => write!(f, "[{},-1]", self.lo),
        }
    }
}
