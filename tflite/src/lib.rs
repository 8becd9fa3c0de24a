//! Reads TensorFlow Lite (`.tflite`) models for shaped's model importer.
//!
//! [`Model::read`] turns a `.tflite` file into a checked description of the model: tensors
//! with static shapes, element types and quantization, constant data located in the file,
//! operators in execution order with their options decoded, and the model's inputs and
//! outputs. Everything shaped does not import, and every inconsistency, is an [`Error`] that
//! names the file, the operator or tensor, and the fault; corrupt input is an error, never a
//! panic. [`Plan::new`] then lays the intermediate tensors out in one arena.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read("model.tflite")?;
//! let model = shaped_tflite::Model::read(&bytes, "model.tflite")?;
//! for op in &model.operators {
//!     println!("{} {}: {:?} -> {:?}", op.index, op.op.name(), op.inputs, op.outputs);
//! }
//! let plan = shaped_tflite::Plan::new(&model)?;
//! print!("{}", plan.report(&model));
//! # Ok(())
//! # }
//! ```
//!
//! With feature `codegen`, [`codegen::model`] writes the Rust code of a model: what
//! `shaped::include_model!` expands to.
//!
//! The flatbuffer is read with [planus](https://docs.rs/planus) from `schema/tflite.fbs`, the
//! subset of TFLite's schema the importer needs (see `schema/regenerate.sh`).

// Our code has no `unsafe`; planus's generated readers do (unchecked reads after its own
// bounds checks), hence `deny` with an exception for that module rather than `forbid`.
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod check;
#[cfg(feature = "codegen")]
pub mod codegen;
mod error;
mod model;
mod names;
mod plan;
mod read;
// planus's output, kept as generated: not formatted, not linted, not part of the API.
#[allow(unsafe_code, clippy::all, clippy::pedantic, missing_docs)]
#[rustfmt::skip]
mod schema_generated;

#[cfg(test)]
mod tests;

pub use error::{Error, ErrorKind, Location};
pub use model::{
    Activation, Conv2d, DType, DepthwiseConv2d, FullyConnected, Model, Op, Operator, Padding,
    Pool2d, Quantization, Tensor, TensorData,
};
pub use plan::{Placement, Plan, PlanOptions, Report};
