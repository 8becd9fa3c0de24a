//! One vocabulary of elementwise operations, shared by every path.
//!
//! The names are Rust's own: the operator traits (`Add`, `Sub`, `Mul`, `Div`, `Rem`) and
//! `PartialEq`/`PartialOrd` (`eq`, `ne`, `lt`, `le`, `gt`, `ge`), plus numpy's words where Rust
//! has none (`maximum`, `minimum`, `pow`, `squared_difference`, `floor_mod`). The same word names
//! the static method, the mixed-shape `try_` method, the runtime enum variant and the binary
//! primitive's [`Alg`](crate::primitive::Alg):
//!
//! | operation | static / operator | mixed | runtime | primitive |
//! |---|---|---|---|---|
//! | add | `a + b` | `try_add` | [`BinaryOp::Add`] | `Alg::Add` |
//! | less than | `a.lt(b)` | `try_lt` | [`CompareOp::Lt`] | `Alg::Lt` |
//! | maximum | `a.maximum(b)` | `try_maximum` | [`BinaryOp::Maximum`] | `Alg::Maximum` |
//! | logical and | `a.and(b)`, `a & b` | `try_and` | [`LogicalOp::And`] | - |
//! | logical not | `!a` | `!a` | `!a` | - |
//! | select | `c.select(a, b)`, `c.where_cond(a, b)` | the same | `DynTensor::select`, `DynTensor::where_cond` | - |

/// An arithmetic operation, for `DynTensor::binary` and the
/// runtime kernels. Element semantics (wrapping integers, errors for zero divisors) are those
/// of [`Element`](crate::Element).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b` (`Add`).
    Add,
    /// `a - b` (`Sub`).
    Sub,
    /// `a * b` (`Mul`).
    Mul,
    /// `a / b` (`Div`); integers round toward zero, as Rust's `/` does.
    Div,
    /// `a % b` (`Rem`): remainder with the sign of `a`, as Rust's `%` and C's `fmod`.
    Rem,
    /// Remainder with the sign of `b`, as Python's `%` (OpenVINO's `FloorMod`).
    FloorMod,
    /// The larger of `a` and `b`; NaN if either is NaN.
    Maximum,
    /// The smaller of `a` and `b`; NaN if either is NaN.
    Minimum,
    /// `a` to the power `b`.
    Pow,
    /// `(a - b)²`.
    SquaredDifference,
}

impl BinaryOp {
    /// Whether an integer zero in the second operand is an error (division and remainders).
    pub(crate) const fn divides(self) -> bool {
        matches!(self, BinaryOp::Div | BinaryOp::Rem | BinaryOp::FloorMod)
    }
}

/// A comparison, for `DynTensor::compare` and the runtime
/// kernels; named as `PartialEq` and `PartialOrd` name their methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
}

/// A logical operation on `bool` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogicalOp {
    /// `a && b` (`BitAnd` on `bool`).
    And,
    /// `a || b` (`BitOr` on `bool`).
    Or,
    /// `a != b` (`BitXor` on `bool`).
    Xor,
}

impl BinaryOp {
    /// The name in messages: the method's name (`maximum`, `floor_mod`).
    pub const fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Rem => "rem",
            BinaryOp::FloorMod => "floor_mod",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
            BinaryOp::Pow => "pow",
            BinaryOp::SquaredDifference => "squared_difference",
        }
    }
}

impl CompareOp {
    /// The name in messages: `PartialEq`'s and `PartialOrd`'s method names.
    pub const fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }
}

impl LogicalOp {
    /// The name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            LogicalOp::And => "and",
            LogicalOp::Or => "or",
            LogicalOp::Xor => "xor",
        }
    }
}

/// An operation of a tensor of any element type, named in the errors of a mismatched or
/// unsupported element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnyOp {
    /// An arithmetic operation.
    Binary(BinaryOp),
    /// A comparison.
    Compare(CompareOp),
    /// A logical operation.
    Logical(LogicalOp),
    /// A reduction.
    Reduce(ReduceOp),
    /// A shape manipulation.
    Shape(ShapeOp),
    /// A unary function, by its method's name.
    Unary(&'static str),
    /// The matrix product.
    MatMul,
    /// `where_cond`'s or `select`'s choice (W1, W2).
    Select,
    /// A view of the elements as a given Rust type.
    Typed,
}

impl AnyOp {
    /// The name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            AnyOp::Binary(op) => op.name(),
            AnyOp::Compare(op) => op.name(),
            AnyOp::Logical(op) => op.name(),
            AnyOp::Reduce(op) => op.name(),
            AnyOp::Shape(op) => op.name(),
            AnyOp::Unary(name) => name,
            AnyOp::MatMul => "matmul",
            AnyOp::Select => "select",
            AnyOp::Typed => "typed",
        }
    }
}

/// A shape manipulation, for the shape methods of tensors and their errors (rules M1-M13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeOp {
    /// The same elements under another shape (M1, M2).
    Reshape,
    /// A dim of 1 added (M3).
    InsertAxis,
    /// A dim of 1 removed (M3).
    Squeeze,
    /// The axes reordered (M4).
    Permute,
    /// A range of one axis (M5).
    Narrow,
    /// Tensors joined along an existing axis (M6).
    Concat,
    /// Tensors joined along a new axis (M7).
    Stack,
    /// Elements taken with a step along each axis (M8).
    Slice,
    /// An axis cut into parts (M9).
    Split,
    /// Elements chosen by indices along an axis (M10).
    Gather,
    /// Elements chosen by an index per element along an axis (M11).
    GatherElements,
    /// Evenly spaced values from a start up to a limit (M12).
    Range,
    /// Elements added around, or removed from, the ends of axes (M13).
    Pad,
}

impl ShapeOp {
    /// The name in messages: the method's name.
    pub const fn name(self) -> &'static str {
        match self {
            ShapeOp::Reshape => "reshape",
            ShapeOp::InsertAxis => "insert_axis",
            ShapeOp::Squeeze => "squeeze",
            ShapeOp::Permute => "permute",
            ShapeOp::Narrow => "narrow",
            ShapeOp::Concat => "concat",
            ShapeOp::Stack => "stack",
            ShapeOp::Slice => "slice",
            ShapeOp::Split => "split",
            ShapeOp::Gather => "gather",
            ShapeOp::GatherElements => "gather_elements",
            ShapeOp::Range => "range",
            ShapeOp::Pad => "pad",
        }
    }
}

/// A reduction over axes, for the reduction methods of tensors and their errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum (0 for no elements); floats are summed pairwise, in the element's accumulator
    /// type (R7).
    Sum,
    /// The arithmetic mean (NaN for no elements).
    Mean,
    /// The product (1 for no elements).
    Prod,
    /// The largest element, NaN-propagating like `maximum`; no elements is an error.
    Max,
    /// The smallest element, NaN-propagating like `minimum`; no elements is an error.
    Min,
    /// The index of the first largest element (of the first NaN, if any); no elements is an
    /// error.
    ArgMax,
    /// The index of the first smallest element (of the first NaN, if any); no elements is an
    /// error.
    ArgMin,
    /// Whether every element is `true` (`true` for no elements).
    All,
    /// Whether some element is `true` (`false` for no elements).
    Any,
    /// The adjoint of NUMPY broadcasting: the sum over every axis that broadcasting to this
    /// shape would have stretched.
    SumTo,
    /// The variance along one axis, with `ddof` (NaN for no elements).
    Var,
    /// The standard deviation along one axis, with `ddof` (NaN for no elements).
    Std,
    /// `exp(x - max) / sum(exp(x - max))` along one axis (the shape is kept).
    Softmax,
    /// `x - max - ln(sum(exp(x - max)))` along one axis (the shape is kept).
    LogSoftmax,
    /// Layer normalization over the axes from one on (the shape is kept).
    LayerNorm,
    /// RMS normalization over the axes from one on (the shape is kept).
    RmsNorm,
}

impl ReduceOp {
    /// The name in messages: the method's name.
    pub const fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::ArgMax => "argmax",
            ReduceOp::ArgMin => "argmin",
            ReduceOp::All => "all",
            ReduceOp::Any => "any",
            ReduceOp::SumTo => "sum_to",
            ReduceOp::Var => "var",
            ReduceOp::Std => "std",
            ReduceOp::Softmax => "softmax",
            ReduceOp::LogSoftmax => "log_softmax",
            ReduceOp::LayerNorm => "layer_norm",
            ReduceOp::RmsNorm => "rms_norm",
        }
    }
}

/// The element function of the [`BinaryOp`] variant `$op` (an identifier) for element type
/// `$t`: the one place that says what each operation computes. A call site whose operation is
/// known (the operators, `try_add`, ...) takes its function from here and monomorphizes one
/// loop nest, not one per operation.
macro_rules! binary_fn {
    (Add, $t:ty) => {
        |x: &$t, y: &$t| <$t as $crate::element::Element>::add(*x, *y)
    };
    (Sub, $t:ty) => {
        |x: &$t, y: &$t| <$t as $crate::element::Element>::sub(*x, *y)
    };
    (Mul, $t:ty) => {
        |x: &$t, y: &$t| <$t as $crate::element::Element>::mul(*x, *y)
    };
    (Div, $t:ty) => {
        |x: &$t, y: &$t| <$t as $crate::element::Element>::div(*x, *y)
    };
    (Rem, $t:ty) => {
        |x: &$t, y: &$t| <$t as $crate::element::Element>::rem(*x, *y)
    };
    (FloorMod, $t:ty) => {
        |x: &$t, y: &$t| <$t as $crate::element::Element>::floor_mod(*x, *y)
    };
    (Maximum, $t:ty) => {
        |x: &$t, y: &$t| $crate::element::pick(*x, *y, core::cmp::Ordering::Greater)
    };
    (Minimum, $t:ty) => {
        |x: &$t, y: &$t| $crate::element::pick(*x, *y, core::cmp::Ordering::Less)
    };
    (Pow, $t:ty) => {
        |x: &$t, y: &$t| <$t as $crate::element::Element>::pow(*x, *y)
    };
    (SquaredDifference, $t:ty) => {
        |x: &$t, y: &$t| <$t as $crate::element::Element>::squared_difference(*x, *y)
    };
}
pub(crate) use binary_fn;

/// Runs `$body` with `$f` bound to the element function ([`binary_fn!`]) of the [`BinaryOp`]
/// `$op` for element type `$t`, an operation chosen at run time. Each arm is its own
/// monomorphized loop.
macro_rules! with_binary_op {
    ($op:expr, $t:ty, $f:ident => $body:expr) => {
        $crate::op::with_binary_op!(@arms $op, $t, $f => $body;
            Add Sub Mul Div Rem FloorMod Maximum Minimum Pow SquaredDifference)
    };
    (@arms $op:expr, $t:ty, $f:ident => $body:expr; $($v:ident)*) => {{
        match $op {
            $($crate::op::BinaryOp::$v => {
                let $f = $crate::op::binary_fn!($v, $t);
                $body
            })*
        }
    }};
}
pub(crate) use with_binary_op;

/// The predicate of the [`CompareOp`] variant `$op` (an identifier), as [`binary_fn!`] is
/// for arithmetic.
macro_rules! compare_fn {
    (Eq) => {
        |x: &_, y: &_| x == y
    };
    (Ne) => {
        |x: &_, y: &_| x != y
    };
    (Lt) => {
        |x: &_, y: &_| x < y
    };
    (Le) => {
        |x: &_, y: &_| x <= y
    };
    (Gt) => {
        |x: &_, y: &_| x > y
    };
    (Ge) => {
        |x: &_, y: &_| x >= y
    };
}
pub(crate) use compare_fn;

/// Runs `$body` with `$f` bound to the predicate ([`compare_fn!`]) of the [`CompareOp`] `$op`.
macro_rules! with_compare_op {
    ($op:expr, $f:ident => $body:expr) => {
        $crate::op::with_compare_op!(@arms $op, $f => $body; Eq Ne Lt Le Gt Ge)
    };
    (@arms $op:expr, $f:ident => $body:expr; $($v:ident)*) => {{
        match $op {
            $($crate::op::CompareOp::$v => {
                let $f = $crate::op::compare_fn!($v);
                $body
            })*
        }
    }};
}
pub(crate) use with_compare_op;

/// Runs `$body` with `$f` bound to the function of the [`LogicalOp`] `$op` on `bool`s.
macro_rules! with_logical_op {
    ($op:expr, $f:ident => $body:expr) => {{
        use $crate::op::LogicalOp as __Logic;
        match $op {
            __Logic::And => {
                let $f = |x: &bool, y: &bool| *x && *y;
                $body
            }
            __Logic::Or => {
                let $f = |x: &bool, y: &bool| *x || *y;
                $body
            }
            __Logic::Xor => {
                let $f = |x: &bool, y: &bool| *x != *y;
                $body
            }
        }
    }};
}
pub(crate) use with_logical_op;

/// What fills the elements that padding adds (M13; ONNX's `Pad` modes, numpy's `pad`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PadMode {
    /// A given value.
    Constant,
    /// The axis mirrored about its first and last elements, which are not repeated (`[1, 2, 3]`
    /// padded by 2 on each side is `[3, 2, 1, 2, 3, 2, 1]`), as many times as the pad needs.
    Reflect,
    /// The first or last element of the axis, repeated.
    Edge,
    /// The axis repeated, as if it were periodic (`[1, 2, 3]` by 2 on each side is
    /// `[2, 3, 1, 2, 3, 1, 2]`).
    Wrap,
}

impl PadMode {
    /// The mode's name in ONNX's `Pad` and numpy's `pad`: `"constant"`, `"reflect"`, `"edge"`,
    /// `"wrap"`.
    pub const fn name(self) -> &'static str {
        match self {
            PadMode::Constant => "constant",
            PadMode::Reflect => "reflect",
            PadMode::Edge => "edge",
            PadMode::Wrap => "wrap",
        }
    }
}

impl core::fmt::Display for PadMode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}
